import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// The thin answer's `deltaToken` and `since`, its `aggregates`, `weight` and `maxZoom`, through
/// the HTTP contract.
@Suite(.watchdog) struct ThinDeltaContractTests {
    typealias Object = [String: Any]

    static func object(_ response: TestResponse) throws -> Object {
        try #require(JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? Object)
    }

    /// An item's id: an annotation's, or a cluster's.
    static func id(_ item: Object) -> String {
        (item["annotation"] as? Object)?["id"] as? String ?? item["id"] as? String ?? ""
    }

    static func items(_ list: Any?) -> [String: NSDictionary] {
        Dictionary(uniqueKeysWithValues: ((list as? [Object]) ?? []).map { (id($0), $0 as NSDictionary) })
    }

    @Test func aDeltaAppliedToTheEarlierAnswerIsTheNewAnswer() async throws {
        try await TestApp.withClient { client in
            try await ThinningContractTests.seed(client)
            let request = ThinningContractTests.thin(48.85, 2.35, zoom: 12)
            let first = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: request))
            let token = try #require(first["deltaToken"] as? String)
            #expect(first["reset"] == nil, "a request without since has no reset")

            // Nothing changed: an empty delta.
            let same = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(48.85, 2.35, zoom: 12, extra: #","since":"\#(token)""#)))
            #expect(same["reset"] as? Bool == false && same["items"] == nil)
            #expect((same["added"] as? [Any])?.isEmpty == true && (same["changed"] as? [Any])?.isEmpty == true && (same["removed"] as? [Any])?.isEmpty == true)

            // A new pin, a pin moved, a pin deleted.
            let shown = (first["items"] as? [Object] ?? []).compactMap { $0["annotation"] as? Object }
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":48.8512,"longitude":2.3312},"title":"New"}"#)
            if let moved = shown.first?["id"] as? String {
                #expect(try await client.send(.patch, "/v1/annotations/\(moved)", json: #"{"coordinate":{"latitude":48.86,"longitude":2.36}}"#, headers: [.contentType: "application/merge-patch+json"]).status == .ok)
            }
            if shown.count > 1, let deleted = shown.last?["id"] as? String {
                #expect(try await client.send(.delete, "/v1/annotations/\(deleted)").status == .noContent)
            }
            // The client moves on to each answer's token (a token answers one delta).
            let next = try #require(same["deltaToken"] as? String)
            let delta = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(48.85, 2.35, zoom: 12, extra: #","since":"\#(next)""#)))
            let whole = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: request))
            #expect(delta["reset"] as? Bool == false)
            var applied = Self.items(first["items"])
            for id in delta["removed"] as? [String] ?? [] { #expect(applied.removeValue(forKey: id) != nil, "removed \(id) was in the earlier answer") }
            for (id, item) in Self.items(delta["changed"]) { #expect(applied[id] != nil, "changed \(id) was there"); applied[id] = item }
            for (id, item) in Self.items(delta["added"]) { #expect(applied[id] == nil, "added \(id) was not"); applied[id] = item }
            #expect(applied == Self.items(whole["items"]))
            #expect(!((delta["added"] as? [Any] ?? []) + (delta["changed"] as? [Any] ?? [])).isEmpty, "the new pin shows")

            // A token this instance does not hold, one used already, or another view's: the whole answer.
            let last = try #require(delta["deltaToken"] as? String)
            for (since, zoom) in [("nope.1", 12.0), (token, 12.0), (last, 11.0)] {
                let reset = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(48.85, 2.35, zoom: zoom, extra: #","since":"\#(since)""#)))
                #expect(reset["reset"] as? Bool == true && reset["items"] != nil && reset["added"] == nil)
            }
        }
    }

    @Test func clustersCarryAggregatesAndWeightsAndStopPastMaxZoom() async throws {
        try await TestApp.withClient { client in
            // Four pins in one cell: populations 10, 20 and 30, and one without (it weighs 1).
            for (i, population) in [10, 20, 30, nil].enumerated() {
                let properties = population.map { #","properties":{"population":\#($0)}"# } ?? ""
                _ = try await client.createAnnotation(#"{"coordinate":{"latitude":10.00\#(i),"longitude":10.00\#(i)}\#(properties)}"#)
            }
            let extra = #","aggregates":{"population":["sum","max","mean","count","min"],"absent":["min","count"]},"weight":"population","maxZoom":9"#
            let answer = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(10, 10, zoom: 5, extra: extra)))
            let cluster = try #require((answer["items"] as? [Object])?.first)
            #expect(cluster["count"] as? Int == 4 && cluster["weight"] as? Double == 61, "\(cluster)")
            let population = try #require((cluster["aggregates"] as? Object)?["population"] as? Object)
            #expect(population["sum"] as? Double == 60 && population["max"] as? Double == 30 && population["min"] as? Double == 10)
            #expect(population["mean"] as? Double == 20 && population["count"] as? Int == 3)
            #expect((cluster["aggregates"] as? Object)?["absent"] as? NSDictionary == ["count": 0], "no member has it: a count of 0, no min")
            // Weighted centroid: latitudes 10.000…10.003 by weights 10, 20, 30, 1.
            let latitude = try #require((cluster["coordinate"] as? Object)?["latitude"] as? Double)
            #expect(abs(latitude - (10.000 * 10 + 10.001 * 20 + 10.002 * 30 + 10.003) / 61) < 1e-6)
            #expect(cluster["expansionZoom"] as? Int == 10, "a cluster splits at maxZoom + 1 at the latest")

            // The cluster's own endpoint: the same, with aggregates asked for in the query.
            let id = try #require(cluster["id"] as? String)
            let one = try Self.object(try await client.send(.get, "/v1/clusters/\(id)?aggregate=population:sum&aggregate=population:max"))
            #expect(one["weight"] as? Double == 61 && ((one["aggregates"] as? Object)?["population"] as? NSDictionary) == ["sum": 60, "max": 30])
            #expect(try await client.send(.get, "/v1/clusters/\(id)?aggregate=population").problem(.unprocessableContent).status == 422)

            // Past maxZoom every annotation is its own item, each answering its own values.
            let close = try Self.object(try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(10, 10, zoom: 10, extra: extra)))
            let items = close["items"] as? [Object] ?? []
            #expect(items.count == 4 && items.allSatisfy { $0["type"] as? String == "annotation" })
            #expect(Set(items.compactMap { $0["weight"] as? Double }) == [10, 20, 30, 1])

            // Bad options name their field.
            let tooMany = (0..<9).map { #""p\#($0)":["sum"]"# }.joined(separator: ",")
            let problem = try await client.send(.post, "/v1/annotations/thin", json: ThinningContractTests.thin(10, 10, zoom: 5, extra: #","aggregates":{\#(tooMany)}"#))
            #expect(problem.status == .unprocessableContent || problem.status == .badRequest)
        }
    }
}
