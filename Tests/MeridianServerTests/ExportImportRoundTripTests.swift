import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// An export imports back unchanged: each Feature's `id` names its annotation, so nothing is
/// copied, with or without external ids, and a second export is the first byte for byte.
@Suite(.watchdog) struct ExportImportRoundTripTests {
    struct ImportAnswer: Decodable {
        struct Result: Decodable { var id: String; var status: String }
        var results: [Result]
        var created: Int, updated: Int, unchanged: Int
    }

    @Test func tenThousandRandomAnnotationsExportImportAndExportByteIdentical() async throws {
        var random = SeededGenerator(seed: 34)
        let features = (0..<10_000).map { index in Self.feature(index, random: &random) }
        let collection = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        try await TestApp.withClient { client in
            let geoJSON: HTTPFields = [.contentType: "application/geo+json"]
            let first = try await client.send(.post, "/v1/annotations/import", json: collection, headers: geoJSON)
            #expect(first.status == .ok, "\(String(buffer: first.body).prefix(500))")
            #expect(try first.decode(ImportAnswer.self).created == 10_000)

            let export = try await client.send(.get, "/v1/annotations/export")
            #expect(export.status == .ok)
            let exported = String(buffer: export.body)
            let again = try await client.send(.post, "/v1/annotations/import", json: exported, headers: geoJSON)
            let answer = try again.decode(ImportAnswer.self)
            #expect((answer.created, answer.updated, answer.unchanged) == (0, 0, 10_000))
            #expect(try answer.results.map(\.id) == first.decode(ImportAnswer.self).results.map(\.id))

            let second = try await client.send(.get, "/v1/annotations/export")
            #expect(String(buffer: second.body) == exported, "the second export differs from the first")
        }
    }

    /// An exported feature edited in a GIS tool and imported back updates its annotation (one more
    /// version), and a feature whose id names nothing the tenant holds creates one under a fresh id.
    @Test func anEditedExportUpdatesByIdAndAForeignIdCreates() async throws {
        try await TestApp.withClient { client in
            let created = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":2},"title":"before"}"#)
            let foreign = "019a7a3c-5f00-7c1e-8f00-000000000001"
            let body = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","id":"\(created.id)","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"title":"after","version":1}},
              {"type":"Feature","id":"\(foreign)","geometry":{"type":"Point","coordinates":[3,3]},"properties":{"title":"elsewhere"}}
            ]}
            """
            let answer = try await client.send(.post, "/v1/annotations/import", json: body, headers: [.contentType: "application/geo+json"]).decode(ImportAnswer.self)
            #expect(answer.results.map(\.status) == ["updated", "created"])
            #expect(answer.results[0].id == created.id && answer.results[1].id != foreign)
            let stored = try await client.send(.get, "/v1/annotations/\(created.id)").decode(WireAnnotation.self)
            #expect(stored.title == "after" && stored.version == 2)
        }
    }

    /// One random Point feature: half with an external id, free properties of every JSON kind.
    static func feature(_ index: Int, random: inout SeededGenerator) -> String {
        let longitude = (random.unit() * 360 - 180).clamped(to: -180...180)
        let latitude = random.unit() * 170 - 85
        var properties: [String] = []
        if index.isMultiple(of: 2) { properties.append(#""externalId":"ext-\#(index)""#) }
        if random.next() % 3 == 0 { properties.append(#""title":"Ort \#(index) «é» \#u{1F30D}""#) }
        if random.next() % 4 == 0 { properties.append(#""kind":"k\#(random.next() % 5)""#) }
        if random.next() % 5 == 0 { properties.append(#""clusteringIdentifier":"c\#(random.next() % 3)""#) }
        if random.next() % 2 == 0 { properties.append(#""displayPriority":\#(random.next() % 1001)"#) }
        let free = [
            #""population":\#(random.next() % 10_000_000)"#,
            #""ratio":\#(random.unit() * 1000 - 500)"#,
            #""open":\#(random.next() % 2 == 0)"#,
            #""tags":["a","b\"q",\#(random.next() % 100),null,{"deep":[\#(random.unit())]}]"#,
            #""note":"line\nbreak \#(index)""#,
        ].filter { _ in random.next() % 3 != 0 }
        if !free.isEmpty { properties.append(#""properties":{"# + free.joined(separator: ",") + "}") }
        return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(longitude),\#(latitude)]},"properties":{"# + properties.joined(separator: ",") + "}}"
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
