import Foundation
import Annotations
import HTTPTypes
import MapGeometry
import MeridianHTTP

/// The query parameters of `…/items` read into an ``OGCItemsQuery``. Every one that cannot be
/// read is 400 naming it, as Part 1 and Part 3 say (a filter too, where `/v1` answers 422).
enum OGCItemsRequest {
    /// Features per page when `limit` is absent, and the most a page holds (Part 1's suggestion).
    static let defaultLimit = 10
    static let limits = 1...10_000

    /// The query of these parameters (the contract's types have checked the enums).
    static func query(
        limit: Int?, bbox: String?, datetime: String?, filter: String?, filterLang: String?, cursor: String?
    ) throws(ProblemError) -> OGCItemsQuery {
        let limit = limit ?? defaultLimit
        guard limits.contains(limit) else {
            throw ProblemError(.badRequest, detail: "limit is out of range",
                               errors: [.init(parameter: "limit", detail: "must be between \(limits.lowerBound) and \(limits.upperBound), got \(limit)")])
        }
        // The contract's pattern for a cursor (`next` links only ever hold ids): another is no cursor of ours.
        if let cursor, cursor.isEmpty || cursor.utf8.count > 256 || !cursor.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._:@-".unicodeScalars.contains($0)) }) {
            throw ProblemError(.badRequest, detail: "cursor cannot be read",
                               errors: [.init(parameter: "cursor", detail: "must be a cursor from a next link (at most 256 letters, digits and ._:@-)")])
        }
        return OGCItemsQuery(
            limit: limit, bbox: try bbox.map(Self.bbox), datetime: try datetime.map(OGCInterval.init(parsing:)),
            filter: try Self.filter(filter, lang: filterLang), cursor: cursor
        )
    }

    /// `minLon,minLat,maxLon,maxLat`, or six numbers with heights (ignored).
    static func bbox(_ text: String) throws(ProblemError) -> BoundingBox {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false)
        let corners = numbers.count == 6 ? [numbers[0], numbers[1], numbers[3], numbers[4]] : numbers
        do { return try BoundingBox(parsing: corners.joined(separator: ",")) } catch {
            throw ProblemError(.badRequest, detail: "bbox cannot be read",
                               errors: [.init(parameter: "bbox", detail: "must be minLon,minLat,maxLon,maxLat (or six numbers with heights) in decimal degrees within ±180 and ±90")])
        }
    }

    /// The filter in `filter-lang` (`cql-text` is CQL2-Text by its pre-standard name); one that
    /// cannot be read is 400 (Part 3), with the reader's explanation.
    static func filter(_ text: String?, lang: String?) throws(ProblemError) -> Filter? {
        do {
            return try RequestFilter.query(text, lang: lang == "cql2-json" ? "cql2-json" : "cql2-text")
        } catch {
            throw ProblemError(.badRequest, detail: "the filter cannot be read", errors: error.problem.errors)
        }
    }
}
