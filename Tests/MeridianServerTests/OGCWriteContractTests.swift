import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// OGC API – Features Part 4 on `annotations`: create, replace, merge-patch and delete features,
/// on the annotations' identity rules.
@Suite(.watchdog) struct OGCWriteContractTests {
    static let items = "/ogc/collections/annotations/items"
    /// `Content-Type: application/geo+json` and `extra`.
    static func geoJSON(_ name: HTTPField.Name? = nil, _ value: String = "") -> HTTPFields {
        var fields: HTTPFields = [.contentType: "application/geo+json"]
        if let name { fields[name] = value }
        return fields
    }
    static let cafe = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"title":"Café","kind":"cafe","seats":12,"properties.title":"free title"}}"#

    @Test func createReplacePatchAndDeleteWithETagsThen410() async throws {
        try await TestApp.withClient { client in
            let created = try await client.send(.post, Self.items, json: Self.cafe, headers: Self.geoJSON())
            #expect(created.status == .created && created.headers[.contentType] == "application/geo+json; charset=utf-8", "\(String(buffer: created.body))")
            #expect(created.headers[.eTag] == "\"1\"")
            let feature = try created.decode(OGCWireFeature.self)
            let url = Self.items + "/" + feature.id
            #expect(created.headers[.location] == "http://localhost" + url)
            #expect(feature.properties["title"] == .string("Café") && feature.properties["seats"] == .number(12))
            #expect(feature.properties["properties.title"] == .string("free title"))
            // As /v1 sees it: the free `title` is a free property.
            let annotation = try await client.get("/v1/annotations/\(feature.id)", as: WireAnnotation.self)
            #expect(annotation.title == "Café" && annotation.properties == ["seats": .number(12), "title": .string("free title")])

            let replaced = try await client.send(.put, url, json: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.4,48.9]},"properties":{"title":"Café 2"}}"#,
                                                 headers: Self.geoJSON(.ifMatch, "\"1\""))
            #expect(replaced.status == .ok && replaced.headers[.eTag] == "\"2\"", "\(String(buffer: replaced.body))")
            let after = try replaced.decode(OGCWireFeature.self)
            #expect(after.geometry.coordinates == [2.4, 48.9] && after.properties["kind"] == nil && after.properties["seats"] == nil)
            _ = try await client.send(.put, url, json: Self.cafe, headers: Self.geoJSON(.ifMatch, "\"1\"")).problem(.preconditionFailed)

            let patched = try await client.send(.patch, url, json: #"{"properties":{"kind":"bar","properties.title":"again","title":null}}"#,
                                                headers: [.contentType: "application/merge-patch+json", .ifMatch: "\"2\""])
            #expect(patched.status == .ok && patched.headers[.eTag] == "\"3\"", "\(String(buffer: patched.body))")
            let merged = try patched.decode(OGCWireFeature.self).properties
            #expect(merged["kind"] == .string("bar") && merged["title"] == nil && merged["properties.title"] == .string("again"))
            let moved = try await client.send(.patch, url, json: #"{"geometry":{"type":"Point","coordinates":[3,49]}}"#, headers: [.contentType: "application/merge-patch+json"])
            #expect(try moved.decode(OGCWireFeature.self).geometry.coordinates == [3, 49] && moved.headers[.eTag] == "\"4\"")

            _ = try await client.send(.delete, url, headers: [.ifMatch: "\"3\""]).problem(.preconditionFailed)
            #expect(try await client.send(.delete, url, headers: [.ifMatch: "\"4\""]).status == .noContent)
            _ = try await client.send(.get, url).problem(.gone)
            _ = try await client.send(.put, url, json: Self.cafe, headers: Self.geoJSON()).problem(.gone)
            _ = try await client.send(.patch, url, json: "{}", headers: [.contentType: "application/merge-patch+json"]).problem(.gone)
            _ = try await client.send(.delete, url).problem(.gone)
            let missing = Self.items + "/0190f8a0-0000-7000-8000-000000000000"
            _ = try await client.send(.put, missing, json: Self.cafe, headers: Self.geoJSON()).problem(.notFound)
            _ = try await client.send(.delete, missing).problem(.notFound)
            // Only `annotations` takes writes: writesToOtherCollectionsAre405WithAllowOr404.
        }
    }

    @Test func aFeatureReadBackWritesTheSameAnnotationUnchanged() async throws {
        try await TestApp.withClient { client in
            let made = try await client.createAnnotation(
                #"{"coordinate":{"latitude":1,"longitude":2},"title":"T","externalId":"e-1","properties":{"title":"free","version":"v9","n":1.5}}"#)
            let url = Self.items + "/" + made.id
            let read = try await client.send(.get, url)
            // A GIS tool sends back every column it read, server fields and links included.
            let put = try await client.send(.put, url, json: String(buffer: read.body), headers: Self.geoJSON())
            #expect(put.status == .ok && put.headers[.eTag] == "\"1\"", "\(String(buffer: put.body))")
            #expect(try await client.get("/v1/annotations/\(made.id)", as: WireAnnotation.self) == made)
            // Null columns are no values.
            let nulls = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"title":"T","externalId":"e-1","kind":null,"properties.title":"free","properties.version":"v9","n":1.5,"other":null}}"#
            let same = try await client.send(.put, url, json: nulls, headers: Self.geoJSON())
            #expect(same.status == .ok && same.headers[.eTag] == "\"1\"", "\(String(buffer: same.body))")
        }
    }

    @Test func anIdempotencyKeyReplaysTheFirstCreate() async throws {
        try await TestApp.withClient { client in
            let headers = Self.geoJSON(.idempotencyKey, "qgis-1")
            let first = try await client.send(.post, Self.items, json: Self.cafe, headers: headers)
            #expect(first.status == .created && first.headers[.idempotentReplayed] == nil)
            let replay = try await client.send(.post, Self.items, json: Self.cafe, headers: headers)
            #expect(replay.status == .created && replay.headers[.idempotentReplayed] == "true")
            #expect(replay.headers[.location] == first.headers[.location])
            #expect(try replay.decode(OGCWireFeature.self) == first.decode(OGCWireFeature.self))
            let other = try await client.send(.post, Self.items, json: Self.cafe.replacingOccurrences(of: "Café", with: "Bar"), headers: headers)
            #expect(try other.problem(.unprocessableContent).errors?.first?.parameter == "Idempotency-Key")
            #expect(try await client.ogcFeatures(Self.items).count == 1)
        }
    }

    @Test func invalidFeaturesAre422WithPointersAndMalformedBodies400() async throws {
        try await TestApp.withClient { client in
            let line = #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}}"#
            #expect(try await client.send(.post, Self.items, json: line, headers: Self.geoJSON()).problem(.unprocessableContent).pointers == ["/geometry/type"])
            let far = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,91]},"properties":{}}"#
            #expect(try await client.send(.post, Self.items, json: far, headers: Self.geoJSON()).problem(.unprocessableContent).pointers == ["/geometry/coordinates/1"])
            let priority = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,1]},"properties":{"displayPriority":5000}}"#
            #expect(try await client.send(.post, Self.items, json: priority, headers: Self.geoJSON()).problem(.unprocessableContent).pointers == ["/properties/displayPriority"])
            let nested = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,1]},"properties":{"a":1,"properties":[null]}}"#
            #expect(try await client.send(.post, Self.items, json: nested, headers: Self.geoJSON()).problem(.unprocessableContent).pointers == ["/properties/properties"])
            _ = try await client.send(.post, Self.items, json: "[1]", headers: Self.geoJSON()).problem(.badRequest)
            _ = try await client.send(.post, Self.items, json: "{", headers: Self.geoJSON()).problem(.badRequest)
            let made = try await client.send(.post, Self.items, json: Self.cafe, headers: Self.geoJSON()).decode(OGCWireFeature.self)
            let patch = [(#"{"geometry":null}"#, "/geometry"), (#"{"id":"x"}"#, "/id"), (#"{"properties":{"displayPriority":"high"}}"#, "/properties/displayPriority")]
            for (body, pointer) in patch {
                let response = try await client.send(.patch, Self.items + "/" + made.id, json: body, headers: [.contentType: "application/merge-patch+json"])
                #expect(response.status.code == 400 || response.status.code == 422, "\(body)")
                #expect(try response.problem(response.status).pointers.contains(pointer) || response.status.code == 400, "\(body): \(String(buffer: response.body))")
            }
        }
    }

    @Test func writesTakeAWriterKey() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader), ("acme", .writer)]) { client, tokens, _ in
            let refused = try await client.afterKeyWrites {
                try await client.send(.post, Self.items, json: Self.cafe, key: tokens["acme/reader"], headers: Self.geoJSON())
            }
            _ = try refused.problem(.forbidden)
            let made = try await client.send(.post, Self.items, json: Self.cafe, key: tokens["acme/writer"], headers: Self.geoJSON())
            #expect(made.status == .created)
            let id = try made.decode(OGCWireFeature.self).id
            _ = try await client.send(.delete, Self.items + "/" + id, key: tokens["acme/reader"]).problem(.forbidden)
            #expect(try await client.send(.delete, Self.items + "/" + id, key: tokens["acme/writer"]).status == .noContent)
        }
    }
}

extension OGCWriteContractTests {
    /// The contract lists `annotations` as the one writable collection; a write elsewhere is what
    /// HTTP says: 405 with `Allow` on a read-only collection, 404 on one that does not exist,
    /// whatever the body (a valid one here, as a client that read the links would send).
    @Test func writesToOtherCollectionsAre405WithAllowOr404() async throws {
        try await TestApp.withClient { client in
            for collection in ["regions", "devices"] {
                let created = try await client.send(.post, "/ogc/collections/\(collection)/items", json: Self.cafe, headers: Self.geoJSON())
                #expect(try created.problem(.methodNotAllowed).detail?.contains(collection) == true)
                #expect(created.headers[.allow] == "GET, HEAD, OPTIONS")
                let patched = try await client.send(.patch, "/ogc/collections/\(collection)/items/x", json: #"{"properties":null}"#,
                                                    headers: [.contentType: "application/merge-patch+json", .ifMatch: "*"])
                _ = try patched.problem(.methodNotAllowed)
                _ = try await client.send(.delete, "/ogc/collections/\(collection)/items/x").problem(.methodNotAllowed)
            }
            let missing = try await client.send(.put, "/ogc/collections/01a22778-bc0c-7704-bd6f-e859196373d5/items/x", json: Self.cafe, headers: Self.geoJSON())
            #expect(try missing.problem(.notFound).detail?.contains("01a22778-bc0c-7704-bd6f-e859196373d5") == true)
        }
    }

    /// A query parameter outside its enum is 400 naming the parameter and the values it takes.
    @Test func aQueryValueOutsideItsEnumIs400NamingTheParameter() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.get, Self.items + "?crs=EPSG:4326").problem(.badRequest)
            #expect(problem.errors?.first?.parameter == "crs", "\(problem)")
            #expect(problem.detail?.contains("http://www.opengis.net/def/crs/EPSG/0/4326") == true)
            #expect(try await client.send(.get, "/ogc?f=xml").problem(.badRequest).errors?.first?.parameter == "f")
        }
    }
}
