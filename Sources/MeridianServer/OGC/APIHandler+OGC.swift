import Foundation
import MeridianAPI
import MeridianHTTP
import Timeline
import WireJSON

// OGC API – Features reads: the landing page, conformance, the collections, their items and
// queryables. Each source (``OGCCollections``) answers for its collection; these shape the documents.

extension APIHandler {
    func getOGCLanding(_ input: Operations.GetOGCLanding.Input) async throws -> Operations.GetOGCLanding.Output {
        .ok(.init(body: .json(OGCDocuments.landing)))
    }

    func getOGCConformance(_ input: Operations.GetOGCConformance.Input) async throws -> Operations.GetOGCConformance.Output {
        .ok(.init(body: .json(.init(conformsTo: OGCConformance.classes))))
    }

    func listOGCCollections(_ input: Operations.ListOGCCollections.Input) async throws -> Operations.ListOGCCollections.Output {
        let tenant = try await tenants.current()
        var collections: [Components.Schemas.OGCCollection] = []
        for source in OGCCollections.all {
            collections.append(OGCDocuments.collection(source, extent: try await source.extent(in: tenant)))
        }
        return .ok(.init(body: .json(OGCDocuments.collections(collections))))
    }

    func getOGCCollection(_ input: Operations.GetOGCCollection.Input) async throws -> Operations.GetOGCCollection.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let extent = try await source.extent(in: try await tenants.current())
        return .ok(.init(body: .json(OGCDocuments.collection(source, extent: extent))))
    }

    func getOGCQueryables(_ input: Operations.GetOGCQueryables.Input) async throws -> Operations.GetOGCQueryables.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let properties = try await source.queryables(in: try await tenants.current())
        let document = OGCQueryables.document(url: OGCRequest.root + "/collections/\(source.id)/queryables", title: source.title, properties: properties)
        return .ok(.init(body: .applicationSchemaJson(JSONObjectBody(document))))
    }

    func listOGCItems(_ input: Operations.ListOGCItems.Input) async throws -> Operations.ListOGCItems.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let given = input.query
        let query = try OGCItemsRequest.query(
            limit: given.limit, bbox: given.bbox, datetime: given.datetime, filter: given.filter,
            filterLang: given.filterLang?.rawValue, cursor: given.cursor
        )
        let page = try await source.items(query, in: try await tenants.current())
        var links: [JSONValue] = [Self.link(OGCRequest.url(), rel: "self", type: OGCDocuments.geoJSON)]
        if let next = page.next {
            links.append(Self.link(OGCRequest.url(changing: ["cursor": next]), rel: "next", type: OGCDocuments.geoJSON))
        }
        var collection: [String: JSONValue] = [
            "type": .string("FeatureCollection"),
            "features": .array(page.features),
            "links": .array(links),
            "timeStamp": .string(Instant(millisecondOf: Date()).rfc3339),
            "numberReturned": .number(Double(page.features.count)),
        ]
        if let matched = page.numberMatched { collection["numberMatched"] = .number(Double(matched)) }
        return .ok(.init(body: .applicationGeoJson(JSONObjectBody(collection))))
    }

    func getOGCItem(_ input: Operations.GetOGCItem.Input) async throws -> Operations.GetOGCItem.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let feature = try await source.item(input.path.featureId, in: try await tenants.current())
        return .ok(.init(headers: .init(eTag: feature.eTag), body: .applicationGeoJson(Self.document(feature, of: source))))
    }

    // MARK: - Shared

    /// A link object of a GeoJSON document.
    static func link(_ href: String, rel: String, type: String) -> JSONValue {
        .object(["href": .string(href), "rel": .string(rel), "type": .string(type)])
    }

    /// A feature as answered alone: with links to itself and its collection.
    static func document(_ feature: OGCFeature, of source: any OGCCollectionSource) -> JSONObjectBody {
        var members = feature.members
        let collection = OGCRequest.root + "/collections/\(source.id)"
        var links = [link(collection, rel: "collection", type: OGCDocuments.json)]
        if case .string(let id)? = members["id"] {
            links.insert(link(collection + "/items/" + (id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id), rel: "self", type: OGCDocuments.geoJSON), at: 0)
        }
        members["links"] = .array(links)
        return JSONObjectBody(members)
    }
}
