import MeridianHTTP
import Access
import HTTPTypes

/// What each of the contract's operations needs from the caller's role, by method and path
/// template. Every GET (and HEAD) reads unless listed; every other method is listed here, and a test checks the
/// list against the contract so no operation is left to a default.
enum OperationAccess {
    /// Answered without a key: liveness, readiness, the contract itself, the map page and its base map,
    /// the cluster tiles' TileJSON (the tiles take a key)
    /// (its files under `/web/` too; the page asks for a key when the API needs one).
    static let publicPaths: Set<String> = [
        "/healthz", "/readyz", "/openapi.yaml", "/openapi.json", "/", "/tiles/osm.json", WebPage.baseMapTileTemplate, "/tiles/clusters.json",
        // The OGC API's landing page and conformance declaration name no tenant's data, like the contract.
        "/ogc", "/ogc/api", "/ogc/conformance",
    ]
    /// Prometheus metrics: the operator's, so an admin key of the default tenant (or open mode).
    static let metricsPath = "/metrics"

    /// Writes and computations by `METHOD /template`.
    static let permissions: [String: Permission] = {
        var table: [String: Permission] = [:]
        let computations = [
            "/v1/convert/coordinates-to-map-points", "/v1/convert/map-points-to-coordinates", "/v1/convert/regions-to-map-rects",
            "/v1/convert/map-rects-to-regions", "/v1/convert/coordinates-to-screen-points", "/v1/convert/screen-points-to-coordinates",
            "/v1/convert/map-points-to-screen-points", "/v1/convert/screen-points-to-map-points", "/v1/convert/regions-to-screen-rects",
            "/v1/convert/screen-rects-to-regions", "/v1/convert/map-rects-to-screen-rects", "/v1/convert/screen-rects-to-map-rects",
            "/v1/convert/coordinates-to-tiles", "/v1/convert/tiles-to-regions", "/v1/viewport", "/v1/regions/with-distance",
            "/v1/regions/fit", "/v1/geodesic/inverse", "/v1/geodesic/direct", "/v1/crs/transform",
            "/v1/annotations/thin", "/v1/annotations/search", "/v1/annotations/nearest", "/v1/devices/nearest", "/v1/subscriptions/containing",
        ]
        for path in computations { table["POST \(path)"] = .read }
        for key in ["POST /v1/annotations", "PATCH /v1/annotations/{id}", "DELETE /v1/annotations/{id}",
                    "PUT /v1/annotations/by-external-id/{externalId}", "POST /v1/annotations/import",
                    "POST /ogc/collections/{collectionId}/items", "PUT /ogc/collections/{collectionId}/items/{featureId}",
                    "PATCH /ogc/collections/{collectionId}/items/{featureId}", "DELETE /ogc/collections/{collectionId}/items/{featureId}"] {
            table[key] = .writeAnnotations
        }
        table["POST /v1/devices/{deviceId}/locations"] = .ingestLocations
        // The apps' protocols (a GET too: OsmAnd sends fixes as a query).
        for key in ["POST /v1/ingest/owntracks", "GET /v1/ingest/osmand", "POST /v1/ingest/osmand", "POST /v1/ingest/overland"] {
            table[key] = .ingestLocations
        }
        table["POST /v1/subscriptions"] = .administer
        for key in ["PUT /v1/devices/{deviceId}", "PATCH /v1/devices/{deviceId}", "DELETE /v1/devices/{deviceId}",
                    "PUT /v1/device-groups/{group}", "DELETE /v1/device-groups/{group}"] {
            table[key] = .administer
        }
        table["PATCH /v1/subscriptions/{subscriptionId}"] = .administer
        table["DELETE /v1/subscriptions/{subscriptionId}"] = .administer
        table["PUT /v1/ingest-filters"] = .administer
        table["PUT /v1/retention"] = .administer
        for key in ["POST /v1/webhooks", "PATCH /v1/webhooks/{webhookId}", "DELETE /v1/webhooks/{webhookId}",
                    "POST /v1/webhooks/{webhookId}/replay", "POST /v1/webhooks/{webhookId}/test"] {
            table[key] = .administer
        }
        return table
    }()

    /// The permission `method` on `template` needs; a method not listed (an unknown route, which
    /// answers 404 or 405) needs a valid key and nothing more.
    static func permission(_ method: HTTPRequest.Method, _ template: String?) -> Permission? {
        guard let template else { return nil }
        if let permission = permissions["\(method.rawValue) \(template)"] { return permission }
        return method == .get || method == .head ? .read : nil
    }
}
