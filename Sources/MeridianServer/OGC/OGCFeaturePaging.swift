import WireJSON

/// Pages of a collection held whole in memory (`devices`, `regions`): features in id order, the
/// cursor the last id of a page (a page starts after it).
enum OGCFeaturePaging {
    /// The page `query` asks for of `matched` (every feature the query selects, in id order);
    /// `numberMatched` counts them all, as they are at hand.
    static func page(of matched: [[String: JSONValue]], _ query: OGCItemsQuery) -> OGCItemsPage {
        func id(_ feature: [String: JSONValue]) -> String { if case .string(let id)? = feature["id"] { id } else { "" } }
        let rest = matched.drop { feature in query.cursor.map { id(feature) <= $0 } ?? false }
        let page = rest.prefix(query.limit)
        let next = rest.count > query.limit ? page.last.map(id) : nil
        return OGCItemsPage(features: page.map { .object($0) }, next: next, numberMatched: matched.count)
    }
}
