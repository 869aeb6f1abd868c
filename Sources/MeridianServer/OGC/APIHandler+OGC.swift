import Foundation
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import Timeline
import WireJSON

// OGC API – Features reads: the landing page, conformance, the collections, their items and
// queryables. Each source (``OGCCollections``) answers for its collection; these shape the documents.

extension APIHandler {
    func getOGCLanding(_ input: Operations.GetOGCLanding.Input) async throws -> Operations.GetOGCLanding.Output {
        if Self.wantsHTML(input.query.f?.rawValue, input.headers.accept) { return .ok(.init(body: .html(try Self.page(.landing, OGCDocuments.landing)))) }
        return .ok(.init(body: .json(OGCDocuments.landing)))
    }

    func getOGCAPIDefinition(_ input: Operations.GetOGCAPIDefinition.Input) async throws -> Operations.GetOGCAPIDefinition.Output {
        .ok(.init(body: .json(JSONObjectBody(OGCAPIDefinition.document(contract, root: OGCRequest.root)))))
    }

    func getOGCConformance(_ input: Operations.GetOGCConformance.Input) async throws -> Operations.GetOGCConformance.Output {
        let document = Components.Schemas.OGCConformance(conformsTo: OGCConformance.classes)
        if Self.wantsHTML(input.query.f?.rawValue, input.headers.accept) { return .ok(.init(body: .html(try Self.page(.conformance, document)))) }
        return .ok(.init(body: .json(document)))
    }

    func listOGCCollections(_ input: Operations.ListOGCCollections.Input) async throws -> Operations.ListOGCCollections.Output {
        let tenant = try await tenants.current()
        var collections: [Components.Schemas.OGCCollection] = []
        for source in OGCCollections.all {
            collections.append(OGCDocuments.collection(source, extent: try await source.extent(in: tenant)))
        }
        let document = OGCDocuments.collections(collections)
        if Self.wantsHTML(input.query.f?.rawValue, input.headers.accept) { return .ok(.init(body: .html(try Self.page(.collections, document)))) }
        return .ok(.init(body: .json(document)))
    }

    func getOGCCollection(_ input: Operations.GetOGCCollection.Input) async throws -> Operations.GetOGCCollection.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let extent = try await source.extent(in: try await tenants.current())
        let document = OGCDocuments.collection(source, extent: extent)
        if Self.wantsHTML(input.query.f?.rawValue, input.headers.accept) { return .ok(.init(body: .html(try Self.page(.collection, document)))) }
        return .ok(.init(body: .json(document)))
    }

    func getOGCQueryables(_ input: Operations.GetOGCQueryables.Input) async throws -> Operations.GetOGCQueryables.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let properties = try await source.queryables(in: try await tenants.current())
        let document = JSONObjectBody(OGCQueryables.document(url: OGCRequest.root + "/collections/\(source.id)/queryables", title: source.title, properties: properties))
        if Self.wantsHTML(input.query.f?.rawValue, input.headers.accept) { return .ok(.init(body: .html(try Self.page(.queryables, document)))) }
        // JSON Schema's own type unless the client ranks plain JSON first (GDAL 3.6 refuses the other).
        if input.headers.accept.sortedByQuality().first?.contentType == .json { return .ok(.init(body: .json(document))) }
        return .ok(.init(body: .applicationSchemaJson(document)))
    }

    func listOGCItems(_ input: Operations.ListOGCItems.Input) async throws -> Operations.ListOGCItems.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let given = input.query
        let html = Self.wantsHTML(given.f?.rawValue, input.headers.accept)
        // The page's map draws CRS84, whatever `crs` says.
        let crs = html ? .crs84 : try OGCCRS.named(given.crs?.rawValue, parameter: "crs")
        let (bbox, filter) = try Self.inCRS84(
            bbox: given.bbox, bboxCRS: given.bboxCrs?.rawValue, filter: given.filter, filterLang: given.filterLang?.rawValue,
            filterCRS: given.filterCrs?.rawValue, pool: transformers)
        let query = try OGCItemsRequest.query(
            limit: given.limit, bbox: bbox, datetime: given.datetime, filter: filter,
            filterLang: given.filterLang?.rawValue, cursor: given.cursor
        )
        let page = try await source.items(query, in: try await tenants.current())
        var links: [JSONValue] = [Self.link(OGCRequest.url(), rel: "self", type: OGCDocuments.geoJSON)]
        if let next = page.next {
            links.append(Self.link(OGCRequest.url(changing: ["cursor": next]), rel: "next", type: OGCDocuments.geoJSON))
        }
        var collection: [String: JSONValue] = [
            "type": .string("FeatureCollection"),
            "features": .array(try page.features.map { try Self.feature($0, in: crs, pool: transformers) }),
            "links": .array(links),
            "timeStamp": .string(Instant(millisecondOf: Date()).rfc3339),
            "numberReturned": .number(Double(page.features.count)),
        ]
        if let matched = page.numberMatched { collection["numberMatched"] = .number(Double(matched)) }
        if html { return .ok(.init(headers: .init(contentCrs: crs.contentCrsHeader), body: .html(try Self.page(.items, collection)))) }
        return .ok(.init(headers: .init(contentCrs: crs.contentCrsHeader), body: .applicationGeoJson(JSONObjectBody(collection))))
    }

    func getOGCItem(_ input: Operations.GetOGCItem.Input) async throws -> Operations.GetOGCItem.Output {
        let source = try OGCCollections.source(input.path.collectionId)
        let html = Self.wantsHTML(input.query.f?.rawValue, input.headers.accept)
        let crs = html ? .crs84 : try OGCCRS.named(input.query.crs?.rawValue, parameter: "crs")
        var feature = try await source.item(input.path.featureId, in: try await tenants.current())
        if let geometry = feature.members["geometry"] { feature.members["geometry"] = try crs.geometry(geometry, with: transformers) }
        let headers = Operations.GetOGCItem.Output.Ok.Headers(contentCrs: crs.contentCrsHeader, eTag: feature.eTag)
        if html { return .ok(.init(headers: headers, body: .html(try Self.page(.item, Self.document(feature, of: source))))) }
        return .ok(.init(headers: headers, body: .applicationGeoJson(Self.document(feature, of: source))))
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
