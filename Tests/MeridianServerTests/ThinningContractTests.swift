import MeridianAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `POST /v1/annotations/thin`, `GET /v1/clusters/{id}` and its leaves through the HTTP contract.
@Suite(.watchdog) struct ThinningContractTests {
    struct Answer: Decodable {
        struct Point: Decodable { var x: Double; var y: Double }
        struct Item: Decodable {
            var type: String
            var annotation: WireAnnotation?
            var screenPoint: Point
            var id: String?
            var count: Int?
            var expansionZoom: Int?
            var clusteringIdentifier: String?
            var kindCounts: [String: Int]?
            var representative: String?
            var coordinate: WireAnnotation.Coordinate?
        }
        var zoomLevel: Double
        var gridZoom: Int
        var cellSize: Int
        var truncated: Bool
        var items: [Item]

        var clusters: [Item] { items.filter { $0.type == "cluster" } }
        var annotations: [WireAnnotation] { items.compactMap(\.annotation) }
        var total: Int { items.reduce(0) { $0 + ($1.count ?? 1) } }
    }

    struct Cluster: Decodable, Equatable {
        var id: String
        var count: Int
        var expansionZoom: Int?
        var representative: String
        var kindCounts: [String: Int]
    }

    struct Page: Decodable { var annotations: [WireAnnotation]; var nextCursor: String? }

    static func thin(_ latitude: Double, _ longitude: Double, zoom: Double, extra: String = "") -> String {
        #"{"viewport":{"size":{"width":1024,"height":768},"center":{"latitude":\#(latitude),"longitude":\#(longitude)},"zoomLevel":\#(zoom)}\#(extra)}"#
    }

    /// 300 points around Paris and 5 in Fiji on both sides of 180°, as one GeoJSON import.
    static func seed(_ client: some TestClientProtocol) async throws {
        var features: [String] = []
        for i in 0..<300 {
            let lat = 48.8 + Double(i % 20) * 0.01, lon = 2.3 + Double(i / 20) * 0.01
            features.append(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"kind":"\#(i % 3 == 0 ? "cafe" : "shop")","displayPriority":\#(i == 7 ? 900 : 500)}}"#)
        }
        for lon in [179.98, 179.99, -179.99, -179.98, -179.97] {
            features.append(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),-17.8]},"properties":{"kind":"island"}}"#)
        }
        let response = try await client.send(.post, "/v1/annotations/import", json: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        #expect(response.status == .ok)
    }

    @Test func aWorldViewCountsEveryAnnotationOnceAndClustersDescribeThemselves() async throws {
        try await TestApp.withClient { client in
            try await Self.seed(client)
            let answer = try await client.post("/v1/annotations/thin", json: Self.thin(20, 90, zoom: 1), as: Answer.self)
            #expect(answer.gridZoom == 1 && answer.cellSize == 64 && !answer.truncated)
            #expect(answer.total == 305, "a view wider than the world lists everything once")
            let paris = try #require(answer.clusters.first { $0.count == 300 })
            #expect(paris.kindCounts == ["cafe": 100, "shop": 200])
            #expect(paris.expansionZoom != nil && paris.expansionZoom! > 1)
            #expect(paris.coordinate.map { abs($0.latitude - 48.895) < 0.01 && abs($0.longitude - 2.37) < 0.01 } == true)
            let fiji = try #require(answer.clusters.first { $0.count == 5 }, "both sides of 180° cluster together")
            #expect(fiji.kindCounts == ["island": 5])

            let described = try await client.get("/v1/clusters/\(paris.id!)", as: Cluster.self)
            let text = String(buffer: try await client.send(.get, "/v1/clusters/\(paris.id!)").body)
            #expect(!text.contains("clusteringIdentifier"), "a group without identifier leaves it out, as the contract says (optional, never null)")
            #expect(described.count == 300 && described.id == paris.id && described.representative == paris.representative)
            // The representative is the highest priority member.
            let representative = try await client.get("/v1/annotations/\(paris.representative!)", as: WireAnnotation.self)
            #expect(representative.displayPriority == 900)

            var seen = Set<String>()
            var cursor: String?
            repeat {
                let page = try await client.get("/v1/clusters/\(paris.id!)/leaves?limit=70" + (cursor.map { "&cursor=\($0)" } ?? ""), as: Page.self)
                for annotation in page.annotations { #expect(seen.insert(annotation.id).inserted) }
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 300)
        }
    }

    @Test func writesShowInTheNextAnswerAndTouchOnlyTheirCluster() async throws {
        try await TestApp.withClient { client in
            try await Self.seed(client)
            let request = Self.thin(48.85, 2.35, zoom: 11)
            let before = try await client.post("/v1/annotations/thin", json: request, as: Answer.self)
            #expect(before.total == 300)
            let created = try await client.createAnnotation(#"{"coordinate":{"latitude":48.8512,"longitude":2.3312},"kind":"cafe","title":"New"}"#)
            let after = try await client.post("/v1/annotations/thin", json: request, as: Answer.self)
            #expect(after.total == 301)
            let old = Dictionary(uniqueKeysWithValues: before.clusters.map { ($0.id!, $0.count!) })
            let new = Dictionary(uniqueKeysWithValues: after.clusters.map { ($0.id!, $0.count!) })
            let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
            let singlesChanged = Set(before.annotations.map(\.id)).symmetricDifference(after.annotations.map(\.id))
            #expect(changed.count + singlesChanged.count >= 1 && changed.count + singlesChanged.count <= 2, "only the item that gained the point changes")

            // A required annotation stands alone, whole and versioned.
            let required = try await client.createAnnotation(#"{"coordinate":{"latitude":48.85,"longitude":2.35},"displayPriority":1000,"title":"HQ"}"#)
            let withRequired = try await client.post("/v1/annotations/thin", json: request, as: Answer.self)
            let first = try #require(withRequired.items.first?.annotation)
            #expect(first.id == required.id && first.title == "HQ" && first.version == 1)
            #expect(abs(withRequired.items[0].screenPoint.x - 512) < 0.01 && abs(withRequired.items[0].screenPoint.y - 384) < 0.01)

            #expect(try await client.send(.delete, "/v1/annotations/\(created.id)").status == .noContent)
            let deleted = try await client.post("/v1/annotations/thin", json: request, as: Answer.self)
            #expect(deleted.total == 301)
            #expect(!deleted.annotations.contains { $0.id == created.id })
        }
    }

    @Test func aClusterIsGoneOnceItsPlaceHoldsFewerThanTwo() async throws {
        try await TestApp.withClient { client in
            let a = try await client.createAnnotation(#"{"coordinate":{"latitude":10,"longitude":10}}"#)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":10.001,"longitude":10.001}}"#)
            let answer = try await client.post("/v1/annotations/thin", json: Self.thin(10, 10, zoom: 5), as: Answer.self)
            let cluster = try #require(answer.clusters.first)
            #expect(cluster.count == 2)
            #expect(try await client.send(.delete, "/v1/annotations/\(a.id)").status == .noContent)
            let gone = try await client.send(.get, "/v1/clusters/\(cluster.id!)")
            #expect(try gone.problem(.notFound).detail?.contains("fewer than two") == true)
            #expect(try await client.send(.get, "/v1/clusters/\(cluster.id!)/leaves").problem(.notFound).status == 404)
        }
    }

    @Test(arguments: [
        (#","cellSize":8"#, "/cellSize"),
        (#","cellSize":1024"#, "/cellSize"),
        (#","limit":10001"#, "/limit"),
        (#","limit":0"#, "/limit"),
        (#","minDisplayPriority":1001"#, "/minDisplayPriority"),
    ])
    func badFieldsAreProblems(extra: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.post("/v1/annotations/thin", json: Self.thin(0, 0, zoom: 3, extra: extra))
            #expect(try response.problem(.unprocessableContent).pointers == [pointer])
        }
    }

    @Test func oversizeFiltersAre422NotACrash() async throws {
        try await TestApp.withClient { client in
            // A kind of 65 536 bytes used to trap while writing a cluster id.
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1},"kind":"a"}"#)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1},"kind":"a"}"#)
            let long = String(repeating: "k", count: 65_536)
            let huge = try await client.post("/v1/annotations/thin", json: Self.thin(1, 1, zoom: 3, extra: #","kinds":["a","\#(long)"]"#))
            #expect(try huge.problem(.unprocessableContent).pointers == ["/kinds"])
            let many = (0..<17).map { "\"k\($0)\"" }.joined(separator: ",")
            let crowded = try await client.post("/v1/annotations/thin", json: Self.thin(1, 1, zoom: 3, extra: #","clusteringIdentifiers":[\#(many)]"#))
            #expect(try crowded.problem(.unprocessableContent).pointers == ["/clusteringIdentifiers"])
            // The longest filters allowed still give cluster ids getCluster reads back.
            let kinds = (0..<16).map { "\"\(String(repeating: "\u{1F5FA}", count: 254))\($0 + 10)\"" }  // 256 code points, 1 018 bytes
            let widest = try await client.post("/v1/annotations/thin", json: Self.thin(1, 1, zoom: 3, extra: #","kinds":["a",\#(kinds.dropFirst().joined(separator: ","))]"#))
            #expect(widest.status == .ok)
        }
    }

    /// The README's limit, 65 536 cells, on the fast route and on the generated one (a filter
    /// takes it): a 4 096-point square at 16-point cells covers 66 564, 4 064 points 65 536.
    @Test func viewsOverTheDocumentedCellLimitAre422OnEveryPath() async throws {
        try await TestApp.withClient { client in
            func view(_ side: Int, _ extra: String = "") -> String {
                #"{"viewport":{"size":{"width":\#(side),"height":\#(side)},"center":{"latitude":10,"longitude":10},"zoomLevel":12},"cellSize":16\#(extra)}"#
            }
            for extra in ["", #","filter":{"op":"=","args":[{"property":"kind"},"a"]}"#] {
                let over = try await client.post("/v1/annotations/thin", json: view(4096, extra))
                #expect(try over.problem(.unprocessableContent).pointers == ["/viewport/size"], "\(extra)")
                let widest = try await client.post("/v1/annotations/thin", json: view(4064, extra))
                #expect(widest.status == .ok, "\(extra)")
            }
            let largest = try await client.post("/v1/annotations/thin", json: #"{"viewport":{"size":{"width":8192,"height":8192},"center":{"latitude":0,"longitude":0},"zoomLevel":12},"cellSize":64}"#)
            #expect(largest.status == .ok)
        }
    }

    @Test func badViewportsAndIdsAreProblems() async throws {
        try await TestApp.withClient { client in
            // Past zoom 22 the last grid is used; past the camera's 30 the zoom is refused.
            let deep = try await client.post("/v1/annotations/thin", json: Self.thin(0, 0, zoom: 23), as: Components.Schemas.ThinAnswer.self)
            #expect(deep.zoomLevel == 23 && deep.gridZoom == 22)
            let deeper = try await client.post("/v1/annotations/thin", json: Self.thin(0, 0, zoom: 31))
            #expect(try deeper.problem(.unprocessableContent).pointers == ["/viewport/zoomLevel"])
            let flat = try await client.post("/v1/annotations/thin", json: #"{"viewport":{"size":{"width":0,"height":768},"center":{"latitude":0,"longitude":0},"zoomLevel":3}}"#)
            #expect(try flat.problem(.unprocessableContent).pointers == ["/viewport/size/width"])
            let huge = try await client.post("/v1/annotations/thin", json: #"{"viewport":{"size":{"width":100000,"height":100000},"center":{"latitude":0,"longitude":0},"zoomLevel":20},"cellSize":16}"#)
            #expect(try huge.problem(.unprocessableContent).pointers == ["/viewport/size/width"])
            // Every bad field in one answer, in the order of the request's fields.
            let several = try await client.post("/v1/annotations/thin", json: #"{"viewport":{"size":{"width":0,"height":768},"center":{"latitude":0,"longitude":0},"zoomLevel":3},"cellSize":8,"limit":0,"minDisplayPriority":-1}"#)
            let problem = try several.problem(.unprocessableContent)
            #expect(problem.pointers == ["/cellSize", "/limit", "/minDisplayPriority", "/viewport/size/width"])
            #expect(problem.detail == "4 values are invalid")
            let missing = try await client.post("/v1/annotations/thin", json: #"{"cellSize":64}"#)
            #expect(try missing.problem(.badRequest).status == 400)
            #expect(try await client.send(.get, "/v1/clusters/not%20a%20cluster").problem(.badRequest).errors?.first?.parameter == "clusterId")
            // A well-formed id of an empty place.
            let empty = "AQUGAAAAAAAAAAAA"
            #expect(try await client.send(.get, "/v1/clusters/\(empty)").problem(.notFound).status == 404)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1}}"#)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1}}"#)
            let answer = try await client.post("/v1/annotations/thin", json: Self.thin(1, 1, zoom: 3), as: Answer.self)
            let id = try #require(answer.clusters.first?.id)
            #expect(answer.clusters.first?.expansionZoom == nil, "two coincident points are a stack")
            #expect(try await client.send(.get, "/v1/clusters/\(id)/leaves?limit=0").problem(.unprocessableContent).errors?.first?.parameter == "limit")
            #expect(try await client.send(.get, "/v1/clusters/\(id)/leaves?cursor=zz").problem(.badRequest).errors?.first?.parameter == "cursor")
        }
    }
}
