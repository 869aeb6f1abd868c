import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// One valid request for each operation of the contract, on a server that holds a little of
/// everything (``OperationExamples/seed(_:)``): what the HTTP-semantics tests send whatever
/// `Accept`, `HEAD` or origin they try.
struct OperationExample: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var body: String?
    var contentType = "application/json"
    /// Whether two requests in a row get the same bytes; a write, counters or a clock do not.
    var repeatable = true

    /// Sends the example with `headers` added.
    func send(_ client: any TestClientProtocol, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if body != nil { headers[.contentType] = contentType }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

enum OperationExamples {
    /// What the seeded server holds: ids the examples name.
    struct Seed: Sendable {
        var annotation: String
        var subscription: String
        var webhook: String
        var cluster: String
    }

    static let origin = #"{"latitude":0,"longitude":0}"#
    static let view = #"{"size":{"width":256,"height":256},"center":{"latitude":0,"longitude":0},"zoomLevel":3}"#
    static let region = #"{"center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#
    static let mapRect = #"{"origin":{"x":134217728,"y":134217728},"size":{"width":1000,"height":1000}}"#
    static let ogcFeature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"title":"ogc"}}"#
    static let screenRect = #"{"origin":{"x":10,"y":10},"size":{"width":20,"height":20}}"#

    /// Two annotations on one spot (a cluster at zoom 3), a device with a fix, a region
    /// subscription and a webhook.
    static func seed(_ client: any TestClientProtocol) async throws -> Seed {
        let pin = #"{"coordinate":{"latitude":10,"longitude":10},"title":"seeded","properties":{"note":"\#(String(repeating: "x", count: 1500))"}}"#
        let annotation = try await client.createAnnotation(pin).id
        _ = try await client.createAnnotation(pin)
        let fix = #"{"locations":[{"coordinate":\#(origin),"timestamp":"2026-01-01T00:00:00Z","horizontalAccuracy":5}]}"#
        #expect(try await client.send(.post, "/v1/devices/d1/locations", json: fix).status == .ok)
        let subscription = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"region":{"circle":{"center":\#(origin),"radius":300}}}"#).id
        let webhook = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/"}"#)
        let thin = try await client.send(.post, "/v1/annotations/thin", json: #"{"viewport":\#(view)}"#)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(thin.body.readableBytesView)) as? [String: Any])["items"] as? [[String: Any]]
        let cluster = try #require(items?.first { $0["type"] as? String == "cluster" }?["id"] as? String, "\(String(buffer: thin.body))")
        let webhookID = try #require(try JSONSerialization.jsonObject(with: Data(webhook.body.readableBytesView)) as? [String: Any], "\(String(buffer: webhook.body))")["id"] as? String
        return Seed(annotation: annotation, subscription: subscription, webhook: try #require(webhookID), cluster: cluster)
    }

    /// Operation id → a valid request of it on `seed`; writes that use up their target (a
    /// delete) make a fresh one each time.
    static func examples(_ seed: Seed) -> [String: @Sendable (any TestClientProtocol) async throws -> OperationExample] {
        let (o, v) = (origin, view)
        func fixed(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, contentType: String = "application/json", repeatable: Bool = true)
            -> @Sendable (any TestClientProtocol) async throws -> OperationExample {
            { _ in OperationExample(method: method, path: path, body: body, contentType: contentType, repeatable: repeatable) }
        }
        let convert = "/v1/convert/"
        return [
            "getPage": fixed(.get, "/"),
            "getHealth": fixed(.get, "/healthz"),
            "getReadiness": fixed(.get, "/readyz"),
            "getContract": fixed(.get, "/openapi.yaml"),
            "getContractJSON": fixed(.get, "/openapi.json"),
            "getMetrics": fixed(.get, "/metrics", repeatable: false),
            "getBaseMapInfo": fixed(.get, "/tiles/osm.json"),
            "getBaseMapTile": fixed(.get, "/tiles/osm/0/0/0.png"),
            "getClusterTileInfo": fixed(.get, "/tiles/clusters.json"),
            "convertCoordinatesToMapPoints": fixed(.post, convert + "coordinates-to-map-points", #"{"coordinates":[\#(o)]}"#),
            "convertMapPointsToCoordinates": fixed(.post, convert + "map-points-to-coordinates", #"{"mapPoints":[{"x":1,"y":2}]}"#),
            "convertRegionsToMapRects": fixed(.post, convert + "regions-to-map-rects", #"{"regions":[\#(region)]}"#),
            "convertMapRectsToRegions": fixed(.post, convert + "map-rects-to-regions", #"{"mapRects":[\#(mapRect)]}"#),
            "convertCoordinatesToScreenPoints": fixed(.post, convert + "coordinates-to-screen-points", #"{"viewport":\#(v),"coordinates":[\#(o)]}"#),
            "convertScreenPointsToCoordinates": fixed(.post, convert + "screen-points-to-coordinates", #"{"viewport":\#(v),"points":[{"x":1,"y":2}]}"#),
            "convertMapPointsToScreenPoints": fixed(.post, convert + "map-points-to-screen-points", #"{"viewport":\#(v),"mapPoints":[{"x":134217728,"y":134217728}]}"#),
            "convertScreenPointsToMapPoints": fixed(.post, convert + "screen-points-to-map-points", #"{"viewport":\#(v),"points":[{"x":1,"y":2}]}"#),
            "convertRegionsToScreenRects": fixed(.post, convert + "regions-to-screen-rects", #"{"viewport":\#(v),"regions":[\#(region)]}"#),
            "convertScreenRectsToRegions": fixed(.post, convert + "screen-rects-to-regions", #"{"viewport":\#(v),"rects":[\#(screenRect)]}"#),
            "convertMapRectsToScreenRects": fixed(.post, convert + "map-rects-to-screen-rects", #"{"viewport":\#(v),"mapRects":[\#(mapRect)]}"#),
            "convertScreenRectsToMapRects": fixed(.post, convert + "screen-rects-to-map-rects", #"{"viewport":\#(v),"rects":[\#(screenRect)]}"#),
            "convertCoordinatesToTiles": fixed(.post, convert + "coordinates-to-tiles", #"{"zoom":10,"coordinates":[\#(o)]}"#),
            "convertTilesToRegions": fixed(.post, convert + "tiles-to-regions", #"{"tiles":[{"z":0,"x":0,"y":0}]}"#),
            "coverWithTiles": fixed(.get, "/v1/tiles/cover?bbox=0,0,1,1&zoom=3"),
            "getClusterTile": fixed(.get, "/v1/tiles/clusters/0/0/0.mvt"),
            "describeViewport": fixed(.post, "/v1/viewport", #"{"viewport":\#(v)}"#),
            "makeRegionWithDistance": fixed(.post, "/v1/regions/with-distance", #"{"center":\#(o),"latitudinalMeters":1000,"longitudinalMeters":1000}"#),
            "fitRegion": fixed(.post, "/v1/regions/fit", #"{"region":\#(region),"size":{"width":100,"height":50}}"#),
            "getMetersPerMapPoint": fixed(.get, "/v1/meters-per-map-point?latitude=45"),
            "solveGeodesicInverse": fixed(.post, "/v1/geodesic/inverse", #"{"pairs":[{"from":\#(o),"to":{"latitude":1,"longitude":1}}]}"#),
            "solveGeodesicDirect": fixed(.post, "/v1/geodesic/direct", #"{"items":[{"from":\#(o),"azimuth":0,"distance":1000}]}"#),
            "transformPositions": fixed(.post, "/v1/crs/transform", #"{"source":"EPSG:4326","target":"EPSG:3857","positions":[[0,0]]}"#),
            "listAnnotations": fixed(.get, "/v1/annotations"),
            "createAnnotation": fixed(.post, "/v1/annotations", #"{"coordinate":\#(o)}"#, repeatable: false),
            "getAnnotation": fixed(.get, "/v1/annotations/\(seed.annotation)"),
            "patchAnnotation": fixed(.patch, "/v1/annotations/\(seed.annotation)", #"{"subtitle":"patched"}"#, repeatable: false),
            "deleteAnnotation": { client in
                OperationExample(method: .delete, path: "/v1/annotations/\(try await client.createAnnotation(#"{"coordinate":\#(o)}"#).id)", repeatable: false)
            },
            "putAnnotationByExternalId": { _ in
                OperationExample(method: .put, path: "/v1/annotations/by-external-id/\(UUID().uuidString)", body: #"{"coordinate":\#(o)}"#, repeatable: false)
            },
            "listAnnotationChanges": fixed(.get, "/v1/annotations/changes?after=0"),
            "importAnnotations": fixed(.post, "/v1/annotations/import", #"{"type":"FeatureCollection","features":[]}"#, contentType: "application/geo+json"),
            "exportAnnotations": fixed(.get, "/v1/annotations/export"),
            "searchAnnotations": fixed(.post, "/v1/annotations/search", #"{"filter":{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[0,0],[20,0],[20,20],[0,20],[0,0]]]}]}}"#),
            "nearestAnnotations": fixed(.post, "/v1/annotations/nearest", #"{"point":\#(o)}"#),
            "thinAnnotations": fixed(.post, "/v1/annotations/thin", #"{"viewport":\#(v)}"#),
            "getCluster": fixed(.get, "/v1/clusters/\(seed.cluster)"),
            "getClusterLeaves": fixed(.get, "/v1/clusters/\(seed.cluster)/leaves"),
            "listDevices": fixed(.get, "/v1/devices"),
            "nearestDevices": fixed(.post, "/v1/devices/nearest", #"{"point":\#(o),"maxAge":1e300}"#),
            "postLocations": fixed(.post, "/v1/devices/d1/locations",
                                   #"{"locations":[{"coordinate":\#(o),"timestamp":"2026-01-01T00:00:00Z","horizontalAccuracy":5}]}"#),
            "listLocations": fixed(.get, "/v1/devices/d1/locations"),
            "ingestOwnTracks": fixed(.post, "/v1/ingest/owntracks?u=jane&d=phone", #"{"_type":"location","lat":1,"lon":2,"tst":1767225600,"tid":"JP"}"#),
            "ingestOsmAndQuery": fixed(.get, "/v1/ingest/osmand?id=d2&lat=1&lon=2&timestamp=1767225600&speed=3"),
            "ingestOsmAnd": fixed(.post, "/v1/ingest/osmand", "id=d2&lat=1&lon=2&timestamp=1767225600&batt=50", contentType: "application/x-www-form-urlencoded"),
            "ingestOverland": fixed(.post, "/v1/ingest/overland?device_id=d3",
                                    #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"timestamp":"2026-01-01T00:00:00Z","horizontal_accuracy":5}}]}"#),
            "getDevice": fixed(.get, "/v1/devices/d1"),
            "getIngestFilters": fixed(.get, "/v1/ingest-filters"),
            "putIngestFilters": fixed(.put, "/v1/ingest-filters", "{}"),
            "getRetention": fixed(.get, "/v1/retention"),
            "putRetention": fixed(.put, "/v1/retention", "{}"),
            "getTrack": fixed(.get, "/v1/devices/d1/track"),
            "listStops": fixed(.get, "/v1/devices/d1/stops?minimumDuration=0"),
            "listTrips": fixed(.get, "/v1/devices/d1/trips?minimumDuration=0"),
            // Each PUT replaces a record the first one made (200 every time).
            "putDevice": { client in
                _ = try await client.send(.put, "/v1/devices/d1", json: "{}")
                return OperationExample(method: .put, path: "/v1/devices/d1", body: #"{"name":"D1","groups":["fleet"]}"#, repeatable: false)
            },
            "patchDevice": fixed(.patch, "/v1/devices/d1", #"{"properties":{"seats":2}}"#, contentType: "application/merge-patch+json", repeatable: false),
            "deleteDevice": { client in
                let spare = "spare-\(UUID().uuidString)"
                _ = try await client.send(.put, "/v1/devices/\(spare)", json: "{}")
                return OperationExample(method: .delete, path: "/v1/devices/\(spare)", repeatable: false)
            },
            "listDeviceGroups": fixed(.get, "/v1/device-groups"),
            "getDeviceGroup": { client in
                // Written once: every example is then the same record.
                if try await client.send(.get, "/v1/device-groups/kept").status == .notFound {
                    _ = try await client.send(.put, "/v1/device-groups/kept", json: "{}")
                }
                return OperationExample(method: .get, path: "/v1/device-groups/kept")
            },
            "putDeviceGroup": { client in
                _ = try await client.send(.put, "/v1/device-groups/fleet", json: "{}")
                return OperationExample(method: .put, path: "/v1/device-groups/fleet", body: #"{"ingestFilters":{"maxSpeed":70}}"#, repeatable: false)
            },
            "deleteDeviceGroup": { client in
                _ = try await client.send(.put, "/v1/device-groups/old", json: "{}")
                return OperationExample(method: .delete, path: "/v1/device-groups/old", repeatable: false)
            },
            "createSubscription": fixed(.post, "/v1/subscriptions", #"{"type":"significantChange"}"#, repeatable: false),
            "listSubscriptions": fixed(.get, "/v1/subscriptions"),
            "subscriptionsContaining": fixed(.post, "/v1/subscriptions/containing", #"{"point":\#(o)}"#),
            "listSubscriptionOccupants": fixed(.get, "/v1/subscriptions/\(seed.subscription)/occupants"),
            "getSubscription": fixed(.get, "/v1/subscriptions/\(seed.subscription)"),
            "updateSubscription": fixed(.patch, "/v1/subscriptions/\(seed.subscription)", #"{"name":"renamed"}"#, repeatable: false),
            "deleteSubscription": { client in
                OperationExample(method: .delete, path: "/v1/subscriptions/\(try await client.subscribe(#"{"type":"significantChange"}"#).id)", repeatable: false)
            },
            "listSubscriptionEvents": fixed(.get, "/v1/subscriptions/\(seed.subscription)/events?after=0"),
            "listEvents": fixed(.get, "/v1/events?after=0"),
            // The testing server ends a stream after `maxWait`, so the whole answer can be read.
            "streamEvents": fixed(.get, "/v1/events/stream?after=0"),
            "createWebhook": fixed(.post, "/v1/webhooks", #"{"url":"http://127.0.0.1:9/"}"#, repeatable: false),
            "listWebhooks": fixed(.get, "/v1/webhooks"),
            "getWebhook": fixed(.get, "/v1/webhooks/\(seed.webhook)"),
            "updateWebhook": fixed(.patch, "/v1/webhooks/\(seed.webhook)", #"{"state":"enabled"}"#, contentType: "application/merge-patch+json", repeatable: false),
            "deleteWebhook": { client in
                let made = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/"}"#)
                let id = try #require(try JSONSerialization.jsonObject(with: Data(made.body.readableBytesView)) as? [String: Any])["id"] as? String
                return OperationExample(method: .delete, path: "/v1/webhooks/\(try #require(id))", repeatable: false)
            },
            "listWebhookDeliveries": fixed(.get, "/v1/webhooks/\(seed.webhook)/deliveries"),
            "replayWebhook": fixed(.post, "/v1/webhooks/\(seed.webhook)/replay", #"{"fromSequence":1}"#, repeatable: false),
            "testWebhook": fixed(.post, "/v1/webhooks/\(seed.webhook)/test", repeatable: false),
            "getOGCLanding": fixed(.get, "/ogc"),
            "getOGCAPIDefinition": fixed(.get, "/ogc/api"),
            "getOGCConformance": fixed(.get, "/ogc/conformance"),
            "listOGCCollections": fixed(.get, "/ogc/collections"),
            "getOGCCollection": fixed(.get, "/ogc/collections/annotations"),
            "getOGCQueryables": fixed(.get, "/ogc/collections/annotations/queryables"),
            // Every page carries its timeStamp.
            "listOGCItems": fixed(.get, "/ogc/collections/annotations/items?limit=1", repeatable: false),
            "getOGCItem": fixed(.get, "/ogc/collections/annotations/items/\(seed.annotation)"),
            "createOGCItem": fixed(.post, "/ogc/collections/annotations/items", ogcFeature, contentType: "application/geo+json", repeatable: false),
            "replaceOGCItem": fixed(.put, "/ogc/collections/annotations/items/\(seed.annotation)", ogcFeature, contentType: "application/geo+json", repeatable: false),
            "patchOGCItem": fixed(.patch, "/ogc/collections/annotations/items/\(seed.annotation)", #"{"properties":{"subtitle":"patched"}}"#,
                                  contentType: "application/merge-patch+json", repeatable: false),
            "deleteOGCItem": { client in
                OperationExample(method: .delete, path: "/ogc/collections/annotations/items/\(try await client.createAnnotation(#"{"coordinate":\#(o)}"#).id)", repeatable: false)
            },
        ]
    }

    /// Every operation of the served contract: (id, method, path template).
    static func operations(_ client: any TestClientProtocol) async throws -> [(id: String, method: String, template: String)] {
        let served = try await client.execute(uri: "/openapi.json", method: .get)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(served.body.readableBytesView)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return paths.flatMap { template, item in
            item.compactMap { method, operation in
                ((operation as? [String: Any])?["operationId"] as? String).map { ($0, method.uppercased(), template) }
            }
        }.sorted { $0.id < $1.id }
    }
}
