import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `POST /v1/annotations/search` and the `filter` parameter of list and export: one CQL2 language,
/// paged by id so writes meanwhile neither repeat nor skip, every bad filter a 422 at its place.
@Suite(.watchdog) struct SearchContractTests {
    static let shops = [
        #"{"externalId":"s1","coordinate":{"latitude":48.85,"longitude":2.35},"kind":"shop","properties":{"rating":4.5,"address":{"city":"Paris"}}}"#,
        #"{"externalId":"s2","coordinate":{"latitude":48.86,"longitude":2.30},"kind":"shop","properties":{"rating":3}}"#,
        #"{"externalId":"c1","coordinate":{"latitude":48.87,"longitude":2.33},"kind":"cafe","properties":{"rating":4.8}}"#,
        #"{"externalId":"t1","coordinate":{"latitude":35.68,"longitude":139.77},"kind":"shop","properties":{"rating":4.9}}"#,
        #"{"externalId":"f1","coordinate":{"latitude":-17.7,"longitude":179.9},"kind":"shop","properties":{"rating":5}}"#,
    ]
    static let paris = #"{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[2.2,48.8],[2.5,48.8],[2.5,48.9],[2.2,48.9],[2.2,48.8]]]}]}"#

    func externalIds(_ response: TestResponse) throws -> [String] {
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try response.decode(Page.self).annotations.compactMap(\.externalId)
    }

    @Test func searchTakesCQL2JSONOrTextAndListAndExportTakeTheSame() async throws {
        try await TestApp.withClient { client in
            for shop in Self.shops { _ = try await client.createAnnotation(shop) }
            let openShops = #"{"op":"and","args":[{"op":"=","args":[{"property":"kind"},"shop"]},{"op":">=","args":[{"property":"rating"},4]},\#(Self.paris)]}"#
            #expect(try externalIds(try await client.send(.post, "/v1/annotations/search", json: #"{"filter":\#(openShops)}"#)) == ["s1"])
            let text = "kind = 'shop' AND rating >= 4"
            #expect(try externalIds(try await client.send(.post, "/v1/annotations/search", json: #"{"filter":"\#(text)"}"#)) == ["s1", "t1", "f1"])
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try externalIds(try await client.send(.get, "/v1/annotations?filter=\(query)")) == ["s1", "t1", "f1"])
            let jsonQuery = openShops.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try externalIds(try await client.send(.get, "/v1/annotations?filter=\(jsonQuery)&filter-lang=cql2-json")) == ["s1"])
            // Across the antimeridian: a MultiPolygon split at 180°.
            let fiji = "S_INTERSECTS(geometry, MULTIPOLYGON(((179 -18, 180 -18, 180 -17, 179 -17, 179 -18)), ((-180 -18, -179 -18, -179 -17, -180 -17, -180 -18))))"
            #expect(try externalIds(try await client.send(.post, "/v1/annotations/search", json: #"{"filter":"\#(fiji)"}"#)) == ["f1"])
            let export = try await client.send(.get, "/v1/annotations/export?filter=\("address.city = 'Paris'".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(export.status == .ok && String(buffer: export.body).contains(#""externalId":"s1""#) && !String(buffer: export.body).contains(#""s2""#))
            #expect(try externalIds(try await client.send(.post, "/v1/annotations/search", json: #"{"filter":true,"limit":2}"#)) == ["s1", "s2"])
        }
    }

    /// Pages by id: annotations created, moved or deleted while a client pages never make one that
    /// existed throughout appear twice or go missing; through the rows (an attribute filter) and
    /// through the point index (a spatial one).
    @Test(arguments: ["kind = 'keep'", "kind = 'keep' AND S_INTERSECTS(geometry, BBOX(-1, 0, 40, 2.5))"])
    func pagesSurviveWritesMeanwhile(filter: String) async throws {
        try await TestApp.withClient { client in
            var kept: [String] = []
            for index in 0..<30 { kept.append(try await client.createAnnotation(#"{"externalId":"k\#(index)","coordinate":{"latitude":1,"longitude":\#(index)},"kind":"keep"}"#).id) }
            var seen: [String] = []
            var cursor: String?
            var round = 0
            repeat {
                let body = #"{"filter":"\#(filter)","limit":7\#(cursor.map { #","cursor":"\#($0)""# } ?? "")}"#
                let page = try await client.send(.post, "/v1/annotations/search", json: body).decode(Page.self)
                seen += page.annotations.map(\.id)
                cursor = page.nextCursor
                // Writes between pages: new matches, and deletions of non-matching ones.
                _ = try await client.createAnnotation(#"{"coordinate":{"latitude":2,"longitude":\#(round)},"kind":"keep"}"#)
                let other = try await client.createAnnotation(#"{"coordinate":{"latitude":3,"longitude":\#(round)},"kind":"other"}"#)
                _ = try await client.send(.delete, "/v1/annotations/\(other.id)")
                // A kept one moves, staying in the box: it existed throughout, so it is found.
                let moved = kept[round % kept.count]
                _ = try await client.send(.patch, "/v1/annotations/\(moved)", json: #"{"coordinate":{"latitude":1.5,"longitude":\#(round)}}"#)
                round += 1
            } while cursor != nil && round < 20
            #expect(Set(seen).count == seen.count, "no item twice")
            #expect(Set(kept).isSubset(of: Set(seen)), "every item that existed throughout")
        }
    }

    @Test(arguments: [
        (#"{"filter":{"op":"=","args":[{"property":"displayPriority"},"high"]}}"#, "/filter/args/1"),
        (#"{"filter":{"op":"between","args":[{"property":"rating"},1]}}"#, "/filter/args"),
        (#"{"filter":{"op":"s_within","args":[{"property":"geometry"},{"type":"Triangle","coordinates":[[0,0],[1,1]]}]}}"#, "/filter/args/1/type"),
        (#"{"filter":"kind = "}"#, "/filter"),
        (#"{"filter":true,"cursor":"nope"}"#, "/cursor"),
    ])
    func badFiltersAre422AtTheirPlace(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/annotations/search", json: body).problem(.unprocessableContent)
            #expect(problem.pointers == [pointer], "\(problem)")
        }
    }

    @Test func aBadFilterParameterIs422NamingIt() async throws {
        try await TestApp.withClient { client in
            for path in ["/v1/annotations?filter=kind%20%3D", "/v1/annotations/export?filter=rating%20%3E%3D%20%27a", "/v1/annotations?filter=%7B%7D&filter-lang=cql2-json"] {
                let problem = try await client.send(.get, path).problem(.unprocessableContent)
                #expect(problem.errors?.first?.parameter == "filter", "\(path): \(problem)")
            }
            _ = try await client.send(.post, "/v1/annotations/search", json: #"{"limit":3}"#).problem(.badRequest)
        }
    }

    struct Page: Decodable {
        struct Item: Decodable { var id: String; var externalId: String? }
        var annotations: [Item]
        var nextCursor: String?
    }
}
