import Annotations
import Foundation
import Geodesy
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Storage
import Testing
@testable import MeridianServer

/// The thinning fast path writes the same JSON the generated handler's types encode to, except
/// that it spells out `null` where the generated encoder leaves a key out.
@Suite struct ThinFastPathTests {
    @Test func theDirectWriterMatchesTheGeneratedEncoder() async throws {
        let store = try await openAnnotationStore(at: ":memory:")
        var random = SystemRandomNumberGenerator()
        var contents: [AnnotationContent] = []
        for i in 0..<400 {
            contents.append(AnnotationContent(
                externalId: i % 5 == 0 ? "x\(i)" : nil,
                coordinate: Coordinate(latitude: Double.random(in: 40...41, using: &random), longitude: i % 50 == 0 ? 10.5 : Double.random(in: 10...11, using: &random)),
                title: i % 3 == 0 ? "Café \"\(i)\"\n" : nil, subtitle: i % 7 == 0 ? "sub" : nil,
                kind: ["a", "b", nil][i % 3], clusteringIdentifier: i % 4 == 0 ? "g" : nil,
                displayPriority: i % 97 == 0 ? 1000 : 500, properties: i % 2 == 0 ? ["n": .number(Double(i) / 3), "s": .array([.bool(true), .null])] : [:]))
        }
        _ = try await store.importContents(contents)
        let thinning = try await ThinningFollower(store: store)
        let handler = APIHandler(contract: Contract.load(), limits: Limits(maxBatchSize: 10), transformers: CRSTransformerPool(), annotations: store, thinning: thinning,
                                 tracking: try TrackingHub.open(on: MeridianDatabase.open(path: ":memory:"), ids: UUIDv7Generator()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601DateFormatter.withMilliseconds.string(from: date))
        }
        var kinds: [String: Int] = [:]
        for zoom in [3.0, 7.5, 9.0, 13.0] {
            let body = Components.Schemas.ThinRequest(viewport: .init(
                size: .init(width: 800, height: 600), heading: zoom == 9 ? 30 : nil, center: .init(latitude: 40.5, longitude: 10.5), zoomLevel: zoom))
            let fast = ThinAnswerWriter.write(try await ThinningAnswer(ThinningRequest(body), thinning: thinning, store: store))
            guard case .ok(let ok) = try await handler.thinAnnotations(.init(body: .json(body))), case .json(let answer) = ok.body else {
                Issue.record("no answer"); continue
            }
            var generated = try JSONSerialization.jsonObject(with: encoder.encode(answer)) as! [String: Any]
            // The generated encoder omits nil; the writer says null.
            generated["items"] = (generated["items"] as! [[String: Any]]).map { item in
                var item = item
                if item["type"] as? String == "cluster" {
                    for key in ["expansionZoom", "clusteringIdentifier"] where item[key] == nil { item[key] = NSNull() }
                }
                return item
            }
            let direct = try JSONSerialization.jsonObject(with: Data(fast)) as! [String: Any]
            #expect(NSDictionary(dictionary: direct) == NSDictionary(dictionary: generated), "zoom \(zoom)")
            for item in direct["items"] as! [[String: Any]] { kinds[item["type"] as! String, default: 0] += 1 }
        }
        #expect(kinds["annotation", default: 0] > 3 && kinds["cluster", default: 0] > 3, "both kinds of item were compared: \(kinds)")
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withMilliseconds: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}

/// Times are written the way Foundation's ISO 8601 formatter (the generated encoder's) writes them.
@Suite struct APITimeTests {
    @Test func millisecondsRoundTheWayTheEncoderDoes() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let samples: [Int64] = [0, 951_782_400_000, 4_102_444_799_999] + (0..<3000).map { 1_795_000_000_000 + Int64($0) * 7 }
        for ms in samples {
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(apiTimeText(date) == formatter.string(from: date), "\(ms)")
        }
    }
}
