import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// Many annotations at a time through the HTTP contract: pages, the feed, GeoJSON in and out.
@Suite(.watchdog) struct AnnotationSetContractTests {
    struct ChangePage: Decodable {
        struct Change: Decodable { var sequence: Int64; var type: String; var id: String; var version: Int; var at: String }
        var changes: [Change]
        var nextAfter: Int64
    }

    struct ImportAnswer: Decodable {
        struct Result: Decodable { var index: Int; var id: String; var status: String }
        var results: [Result]
        var created: Int
        var updated: Int
        var unchanged: Int
    }

    struct FeatureCollection: Decodable {
        struct Feature: Decodable {
            struct Geometry: Decodable { var type: String; var coordinates: [Double] }
            var type: String
            var id: String
            var geometry: Geometry
            var properties: [String: JSONAny]
        }
        var type: String
        var features: [Feature]
    }

    func pin(_ latitude: Double, _ longitude: Double, kind: String = "pin") -> String {
        #"{"coordinate":{"latitude":\#(latitude),"longitude":\#(longitude)},"kind":"\#(kind)"}"#
    }

    @Test func pagesFollowTheCursorAndABboxMayCrossTheAntimeridian() async throws {
        try await TestApp.withClient { client in
            var fiji: [String] = []
            for index in 0..<7 {
                fiji.append(try await client.createAnnotation(pin(-17.5, index.isMultiple(of: 2) ? 179.5 : -179.5)).id)
                _ = try await client.createAnnotation(pin(-17.5, 0))  // Gulf of Guinea: outside
            }
            _ = try await client.createAnnotation(pin(-17.5, 179.6, kind: "other"))
            var seen: [String] = []
            var cursor: String?
            repeat {
                let query = "/v1/annotations?bbox=179,-20,-179,-15&kind=pin&limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.get(query, as: Page.self)
                #expect(page.annotations.count <= 3)
                seen += page.annotations.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == fiji)
        }
    }

    @Test(arguments: [
        ("/v1/annotations?bbox=1,2,3", "bbox"), ("/v1/annotations?bbox=0,0,1e1,5", "bbox"), ("/v1/annotations?limit=0", "limit"),
        ("/v1/annotations?limit=1001", "limit"), ("/v1/annotations/changes?wait=61", "wait"), ("/v1/annotations/changes?limit=5000", "limit"),
        ("/v1/annotations/changes?after=-1", "after"), ("/v1/annotations/export?bbox=0,0,181,1", "bbox"),
    ])
    func badQueryParametersAreNamed(path: String, parameter: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.get, path).problem(.unprocessableContent)
            #expect(problem.errors?.map(\.parameter) == [parameter])
        }
    }

    @Test func aForeignCursorIsABadRequest() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.get, "/v1/annotations?cursor=page-2").problem(.badRequest)
            #expect(problem.errors?.first?.parameter == "cursor")
        }
    }

    @Test func theFeedListsEveryChangeInOrderAndLongPollsForTheNext() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let created = try await client.createAnnotation(pin(1, 1))
            _ = try await client.send(.patch, "/v1/annotations/\(created.id)", json: #"{"title":"t"}"#, headers: [.contentType: "application/merge-patch+json"])
            _ = try await client.send(.delete, "/v1/annotations/\(created.id)")
            let feed = try await client.get("/v1/annotations/changes?after=0", as: ChangePage.self)
            #expect(feed.changes.map(\.type) == ["created", "updated", "deleted"])
            #expect(feed.changes.map(\.sequence) == [1, 2, 3] && feed.changes.map(\.version) == [1, 2, 3])
            #expect(Set(feed.changes.map(\.id)) == [created.id] && feed.nextAfter == 3)
            let paged = try await client.get("/v1/annotations/changes?after=1&limit=1", as: ChangePage.self)
            #expect(paged.changes.map(\.sequence) == [2] && paged.nextAfter == 2)

            // Nothing after 3 yet: an empty page after the wait, with nextAfter unchanged.
            let clock = ContinuousClock()
            let start = clock.now
            let idle = try await client.get("/v1/annotations/changes?after=3&wait=0.3", as: ChangePage.self)
            #expect(idle.changes.isEmpty && idle.nextAfter == 3 && clock.now - start >= .milliseconds(300))

            // A write on another connection answers the waiting poll at once.
            let port = try #require(client.port)
            async let polled = TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                try await connection.execute(.init("/v1/annotations/changes?after=3&wait=30", method: .get, authority: "127.0.0.1"))
            }
            try await Task.sleep(for: .milliseconds(200))
            let writeStart = clock.now
            _ = try await client.createAnnotation(pin(2, 2))
            let response = try await polled
            #expect(clock.now - writeStart < .seconds(10))
            let woken = try JSONDecoder().decode(ChangePage.self, from: Data(try #require(response.body).readableBytesView))
            #expect(woken.changes.map(\.sequence) == [4] && woken.changes.first?.type == "created")
        }
    }

    @Test func importUpsertsByExternalIdAndExportRoundTrips() async throws {
        try await TestApp.withClient { client in
            let existing = try await client.createAnnotation(#"{"externalId":"gn:2643743","coordinate":{"latitude":51,"longitude":0},"title":"Londres"}"#)
            let collection = #"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-0.12574,51.50853]},
               "properties":{"externalId":"gn:2643743","title":"London","kind":"city","displayPriority":700,"population":8961989}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[2.3488,48.85341]},
               "properties":{"externalId":"gn:2988507","title":"Paris","kind":"city","properties":{"population":2138551}}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[179.99,-16.5]},"properties":null}
            ]}
            """#
            let response = try await client.send(.post, "/v1/annotations/import", json: collection, headers: [.contentType: "application/geo+json"])
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let answer = try response.decode(ImportAnswer.self)
            #expect(answer.results.map(\.status) == ["updated", "created", "created"])
            #expect(answer.results.map(\.index) == [0, 1, 2] && answer.results[0].id == existing.id)
            #expect((answer.created, answer.updated, answer.unchanged) == (2, 1, 0))
            let london = try await client.send(.get, "/v1/annotations/\(existing.id)").decode(WireAnnotation.self)
            #expect(london.title == "London" && london.version == 2 && london.displayPriority == 700)
            #expect(london.coordinate == .init(latitude: 51.50853, longitude: -0.12574))
            #expect(london.properties == ["population": .number(8961989)])

            let export = try await client.send(.get, "/v1/annotations/export")
            #expect(export.status == .ok && export.headers[.contentType]?.hasPrefix("application/geo+json") == true)
            let features = try export.decode(FeatureCollection.self)
            #expect(features.type == "FeatureCollection" && features.features.map(\.id) == answer.results.map(\.id))
            #expect(features.features[0].geometry.coordinates == [-0.12574, 51.50853])
            #expect(features.features[1].properties["properties"] == .object(["population": .number(2138551)]))
            #expect(features.features[1].properties["version"] == .number(1))

            // What export wrote imports back unchanged: each feature's `id` names its annotation.
            let again = try await client.send(.post, "/v1/annotations/import", json: String(buffer: export.body), headers: [.contentType: "application/geo+json"])
            #expect(try again.decode(ImportAnswer.self).results.map(\.status) == ["unchanged", "unchanged", "unchanged"])

            let fijiOnly = try await client.send(.get, "/v1/annotations/export?bbox=179,-20,-179,-10").decode(FeatureCollection.self)
            #expect(fijiOnly.features.count == 1)
        }
    }

    /// A feature that repeats an earlier one's external id updates what that one wrote: the
    /// contract cannot say "unique within the array", so the import is its upserts in order.
    @Test func featuresRepeatingAnExternalIdApplyInOrder() async throws {
        try await TestApp.withClient { client in
            let collection = #"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"externalId":"a","title":"first"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,1]},"properties":{"externalId":"a","title":"second"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,1]},"properties":{"externalId":"a","title":"second"}}
            ]}
            """#
            let answer = try await client.send(.post, "/v1/annotations/import", json: collection, headers: [.contentType: "application/geo+json"]).decode(ImportAnswer.self)
            #expect(answer.results.map(\.status) == ["created", "updated", "unchanged"])
            #expect(Set(answer.results.map(\.id)).count == 1 && answer.created == 1 && answer.updated == 1 && answer.unchanged == 1)
            let stored = try await client.send(.get, "/v1/annotations/\(answer.results[0].id)").decode(WireAnnotation.self)
            #expect(stored.title == "second" && stored.version == 2)
        }
    }

    @Test func anInvalidImportListsEveryBadFeatureAndStoresNothing() async throws {
        try await TestApp.withClient { client in
            let collection = #"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"externalId":"a"}},
              {"type":"Feature","properties":{"title":"no geometry"}},
              {"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[10,95]}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":["x",1]}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"displayPriority":5000}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"externalId":"a","title":"again"}},
              {"type":"Polygon","geometry":{"type":"Point","coordinates":[0,0]}}
            ]}
            """#
            let problem = try await client.send(.post, "/v1/annotations/import", json: collection, headers: [.contentType: "application/geo+json"]).problem(.unprocessableContent)
            #expect(problem.pointers == [
                "/features/1/geometry", "/features/2/geometry/type", "/features/3/geometry/coordinates/1",
                "/features/4/geometry/coordinates", "/features/5/properties/displayPriority", "/features/7/type",
            ])
            #expect(try await client.get("/v1/annotations", as: Page.self).annotations.isEmpty)
            #expect(try await client.get("/v1/annotations/changes", as: ChangePage.self).changes.isEmpty)
        }
    }

    @Test func aBadFeatureAfterChunksWereWrittenRollsBackTheWholeImport() async throws {
        let good = (0..<4_500).map { #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(Double($0) / 100 - 20),10]},"properties":{"externalId":"p\#($0)"}}"# }
        let bad = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,100]}}"#
        try await TestApp.withClient { client in
            // The reader hands two chunks of 2 048 to the transaction before it meets the bad feature.
            let refused = try await client.send(.post, "/v1/annotations/import", json: #"{"type":"FeatureCollection","features":[\#((good + [bad]).joined(separator: ","))]}"#)
            #expect(try refused.problem(.unprocessableContent).pointers == ["/features/4500/geometry/coordinates/1"])
            #expect(try await client.get("/v1/annotations/changes", as: ChangePage.self).changes.isEmpty)
            #expect(try await client.get("/v1/annotations?limit=1", as: Page.self).annotations.isEmpty)

            let accepted = try await client.send(.post, "/v1/annotations/import", json: #"{"type":"FeatureCollection","features":[\#(good.joined(separator: ","))]}"#)
            let answer = try accepted.decode(ImportAnswer.self)
            #expect(answer.created == 4_500 && answer.results.map(\.index) == Array(0..<4_500))
            #expect(try await client.get("/v1/annotations/changes?limit=1000", as: ChangePage.self).changes.first?.sequence == 1)
        }
    }

    @Test func importsTakeOnlyTheContractsMediaTypes() async throws {
        try await TestApp.withClient { client in
            let body = #"{"type":"FeatureCollection","features":[]}"#
            _ = try await client.send(.post, "/v1/annotations/import", json: body, headers: [.contentType: "application/json-seq"]).problem(.unsupportedMediaType)
            #expect(try await client.send(.post, "/v1/annotations/import", json: body, headers: [.contentType: "Application/GEO+JSON; charset=utf-8"]).status == .ok)
        }
    }

    @Test func deeplyNestedImportedPropertiesAreRefusedByBothReaders() async throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/annotations/import", json: #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"k":\#(deep)}}]}"#).problem(.unprocessableContent)
            #expect(problem.pointers == ["/features/0/properties/properties"])  // the annotation's free properties
        }
    }

    @Test(arguments: [
        (#"{"type":"FeatureCollection","features":[{"type":"Feature"#, ""),
        (#"{"type":"FeatureCollection"}"#, "/features"),
        (#"{"type":"Topology","features":[]}"#, "/type"),
        (#"{"type":"FeatureCollection","features":[{"geometry":null}]}"#, "/features/0/geometry"),
    ])
    func malformedGeoJSONIsABadRequest(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/annotations/import", json: body, headers: [.contentType: "application/geo+json"]).problem(.badRequest)
            #expect(problem.pointers == [pointer])
        }
    }
}
