import Foundation
import MapGeometry
import MeridianAPI

/// The OGC API's discovery documents: the landing page, the collections and each collection,
/// with their links (absolute, from ``OGCRequest``).
enum OGCDocuments {
    static let json = "application/json"
    static let geoJSON = "application/geo+json"
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let gregorian = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"

    static func link(_ path: String, rel: String, type: String = json, title: String? = nil) -> Components.Schemas.OGCLink {
        .init(href: OGCRequest.root + path, rel: rel, _type: type, title: title)
    }

    static var landing: Components.Schemas.OGCLandingPage {
        let origin = OGCRequest.current?.origin ?? ""
        return .init(
            title: "Meridian",
            description: "Map annotations, devices and regions as OGC API – Features collections.",
            links: [
                link("", rel: "self", title: "This document"),
                // One service-desc (GDAL 3.6 ignores several unless one is OpenAPI 3.0), served as application/json.
                link("/api", rel: "service-desc", type: "application/vnd.oai.openapi+json;version=3.1", title: "The API definition (OpenAPI 3.1, served as application/json)"),
                .init(href: origin + "/openapi.json", rel: "describedby", _type: json, title: "The whole server's contract"),
                link("/conformance", rel: "conformance", title: "Conformance classes"),
                link("/collections", rel: "data", title: "The collections"),
            ]
        )
    }

    static func collections(_ collections: [Components.Schemas.OGCCollection]) -> Components.Schemas.OGCCollections {
        .init(links: [link("/collections", rel: "self", title: "This document")], collections: collections)
    }

    static func collection(_ source: any OGCCollectionSource, extent: OGCExtent) -> Components.Schemas.OGCCollection {
        let path = "/collections/\(source.id)"
        var spatial: Components.Schemas.OGCExtent.SpatialPayload?
        if let box = extent.bbox { spatial = .init(bbox: [[box.west, box.south, box.east, box.north]], crs: crs84) }
        var temporal: Components.Schemas.OGCExtent.TemporalPayload?
        if let interval = extent.interval {
            temporal = .init(interval: [[interval.start, interval.end]], trs: gregorian)
        }
        return .init(
            id: source.id, title: source.title, description: source.description,
            links: [
                link(path, rel: "self", title: "This collection"),
                link(path + "/items", rel: "items", type: geoJSON, title: "Its features"),
                link(path + "/queryables", rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", type: "application/schema+json", title: "What a filter may name"),
                // The pre-standard relation, the one GDAL 3.6 follows (to the JSON answer it asks for).
                link(path + "/queryables", rel: "queryables", type: json, title: "What a filter may name"),
            ],
            extent: .init(spatial: spatial, temporal: temporal),
            itemType: "feature", crs: OGCCRS.supported.map(\.uri), storageCrs: OGCCRS.crs84.uri
        )
    }
}
