import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `POST /v1/annotations/thin` with a CQL2 `filter`: clusters count only what matches, their ids
/// name the filter (so `GET /v1/clusters/{id}` and its leaves answer the same members), answers
/// follow writes, and a bad or over-long filter is a 422 at its place.
@Suite(.watchdog) struct ThinFilterContractTests {
    typealias Answer = ThinningContractTests.Answer
    typealias Cluster = ThinningContractTests.Cluster

    /// 60 annotations around one Paris street corner: every third a shop rated 4.5 (20 match), the
    /// others cafés or lower-rated shops.
    static func seed(_ client: some TestClientProtocol) async throws -> [String] {
        var ids: [String] = []
        for i in 0..<60 {
            let kind = i % 3 == 0 || i % 3 == 1 ? "shop" : "cafe"
            let rating = i % 3 == 0 ? 4.5 : 3.0
            let body = #"{"externalId":"p\#(i)","coordinate":{"latitude":\#(48.85 + Double(i % 8) * 0.0001),"longitude":\#(2.35 + Double(i / 8) * 0.0001)},"kind":"\#(kind)","properties":{"rating":\#(rating)}}"#
            ids.append(try await client.createAnnotation(body).id)
        }
        return ids
    }

    static let goodShops = #"{"op":"and","args":[{"op":"=","args":[{"property":"kind"},"shop"]},{"op":">=","args":[{"property":"rating"},4]}]}"#

    static func thin(filter: String?, zoom: Double = 10) -> String {
        ThinningContractTests.thin(48.85, 2.35, zoom: zoom, extra: filter.map { #","filter":\#($0)"# } ?? "")
    }

    @Test func clustersCountOnlyWhatMatchesAndTheirIdsNameTheFilter() async throws {
        try await TestApp.withClient { client in
            let ids = try await Self.seed(client)
            let all = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: nil)).decode(Answer.self)
            #expect(all.total == 60 && all.clusters.count == 1)
            let filtered = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: Self.goodShops)).decode(Answer.self)
            #expect(filtered.total == 20)
            let cluster = try #require(filtered.clusters.first)
            #expect(cluster.count == 20 && cluster.kindCounts == ["shop": 20])
            #expect(cluster.id != all.clusters.first?.id, "the id names the filter")
            // The same filter as CQL2-Text is the same filter: the same cluster id.
            let text = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: #""kind = 'shop' AND rating >= 4""#)).decode(Answer.self)
            #expect(text.clusters.first?.id == cluster.id)

            let found = try await client.send(.get, "/v1/clusters/\(cluster.id!)").decode(Cluster.self)
            #expect(found.count == 20 && found.kindCounts == ["shop": 20])
            let leaves = try await client.send(.get, "/v1/clusters/\(cluster.id!)/leaves?limit=1000").decode(ThinningContractTests.Page.self)
            let matching = Set(stride(from: 0, to: 60, by: 3).map { ids[$0] })
            #expect(Set(leaves.annotations.map(\.id)) == matching)

            // A write that makes one more match is in the next answer and in the cluster by id.
            let patch = try await client.send(.patch, "/v1/annotations/\(ids[1])", json: #"{"properties":{"rating":5}}"#)
            #expect(patch.status == .ok)
            let after = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: Self.goodShops)).decode(Answer.self)
            #expect(after.total == 21 && after.clusters.first?.id == cluster.id)
            #expect(try await client.send(.get, "/v1/clusters/\(cluster.id!)").decode(Cluster.self).count == 21)
            // And one that stops matching, or is deleted, leaves.
            #expect(try await client.send(.delete, "/v1/annotations/\(ids[0])").status == .noContent)
            _ = try await client.send(.patch, "/v1/annotations/\(ids[3])", json: #"{"kind":"cafe"}"#)
            #expect(try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: Self.goodShops)).decode(Answer.self).total == 19)
        }
    }

    @Test func aSpatialFilterThinsOnlyInsideItsPolygon() async throws {
        try await TestApp.withClient { client in
            _ = try await Self.seed(client)
            // The western half of the blob (longitudes below 2.35035: columns 0–3 of 8 rows).
            let west = #"{"op":"s_within","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[2.3,48.8],[2.35035,48.8],[2.35035,48.9],[2.3,48.9],[2.3,48.8]]]}]}"#
            let answer = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: west)).decode(Answer.self)
            #expect(answer.total == 32)
            let both = #"{"op":"and","args":[\#(west),\#(Self.goodShops)]}"#
            let shops = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: both)).decode(Answer.self)
            let search = try await client.send(.post, "/v1/annotations/search", json: #"{"filter":\#(both),"limit":1000}"#).decode(ThinningContractTests.Page.self)
            #expect(shops.total == search.annotations.count && shops.total > 0)
        }
    }

    @Test func aBadOrOverlongFilterIs422AtItsPlace() async throws {
        try await TestApp.withClient { client in
            let bad = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: #"{"op":"=","args":[{"property":"displayPriority"},"high"]}"#))
            #expect(bad.status == .unprocessableContent)
            #expect(String(buffer: bad.body).contains(#""pointer":"/filter/args/1""#), "\(String(buffer: bad.body))")
            let values = (0..<900).map { #""value-\#($0)""# }.joined(separator: ",")
            let long = try await client.send(.post, "/v1/annotations/thin", json: Self.thin(filter: #"{"op":"in","args":[{"property":"title"},[\#(values)]]}"#))
            #expect(long.status == .unprocessableContent)
            #expect(String(buffer: long.body).contains(#""pointer":"/filter""#), "\(String(buffer: long.body))")
        }
    }
}
