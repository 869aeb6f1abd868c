import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import MeridianAPI
import NIOCore
import Testing
import Timeline
import Tracking
import WireJSON
import TestSupport

@testable import MeridianServer

/// The ingest fast route must read what the generated decoding reads, decline what it would
/// refuse or read differently, and write what the generated encoder writes, byte for byte.
@Suite(.watchdog) struct IngestFastPathTests {
    /// A random fix as JSON, with any of the optional members, numbers in several spellings,
    /// members in a random order and random whitespace.
    static func randomFix(_ generator: inout SeededGenerator) -> String {
        func number(_ value: Double) -> String {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return "\(value)"
            case 1: return String(format: "%.6e", value)
            case 2: return "\(value.rounded())"
            default: return String(format: "%.3f", value)
            }
        }
        let space = ["", " ", "\n  "][Int.random(in: 0..<3, using: &generator)]
        var members = [
            #""coordinate":{"longitude":\#(number(Double.random(in: -200...200, using: &generator))),\#(space)"latitude":\#(number(Double.random(in: -95...95, using: &generator)))}"#,
            #""timestamp":"2026-11-2\#(Int.random(in: 0...5, using: &generator))T0\#(Int.random(in: 0...9, using: &generator)):15:30.\#(Int.random(in: 0...999_999, using: &generator))Z""#,
            #""horizontalAccuracy":\#(number(Double.random(in: -5...500, using: &generator)))"#,
        ]
        for key in ["speed", "course", "altitude", "verticalAccuracy"] where Bool.random(using: &generator) {
            members.append(#""\#(key)":\#(number(Double.random(in: -1_000...1_000, using: &generator)))"#)
        }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            let attributes = [#""batteryLevel":\#(number(Double.random(in: 0...1, using: &generator)))"#, #""charging":true"#,
                              #""tid":"j\u0031""#, #""motion":["driving",null,{"a":[]}]"#, #""big":9007199254740993"#]
            members.append(#""attributes":{\#(attributes.shuffled(using: &generator).prefix(Int.random(in: 0...5, using: &generator)).joined(separator: ","))}"#)
        }
        members.shuffle(using: &generator)
        return "{\(space)" + members.joined(separator: ",\(space)") + "}"
    }

    /// What the generated path reads: the contract's decoding, then the handler's mapping.
    static func generated(_ body: String) throws -> [LocationFix?] {
        try RequestJSON.decoding(Array(body.utf8)) { bytes in
            try JSONDecoder().decode(Components.Schemas.LocationBatch.self, from: Data(bytes)).locations.enumerated()
                .map { LocationFix($1, at: ["locations", String($0)]) }
        }
    }

    static func fast(_ body: String) -> [LocationFix]? {
        Array(body.utf8).withUnsafeBytes { LocationBatchReader.read($0, limit: RequestRules.maxFixesPerRequest) }
    }

    @Test func theReaderReadsWhatTheGeneratedDecodingReads() throws {
        var generator = SeededGenerator(seed: 18)
        for _ in 0..<300 {
            let body = #"{"locations":[\#((0..<Int.random(in: 0...20, using: &generator)).map { _ in Self.randomFix(&generator) }.joined(separator: ","))]}"#
            let fast = try #require(Self.fast(body), "\(body)")
            #expect(try Self.generated(body) == fast.map(Optional.some), "\(body)")
        }
    }

    @Test(arguments: [
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"heading":3}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"speed":null}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"horizontalAccuracy":6}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"latitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"yesterday","horizontalAccuracy":5}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00\u005A","horizontalAccuracy":5}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"horizontalAccuracy":5}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":1e999}]}"#,
        #"{"locat\u0069ons":[]}"#,
        #"{"locations":[],"device":"x"}"#,
        #"{"locations":[]} x"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"attributes":null}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"attributes":[1]}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"attributes":{},"attributes":{}}]}"#,
        #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5,"attributes":{\#((0...32).map { #""a\#($0)":1"# }.joined(separator: ","))}}]}"#,
    ])
    func theReaderDeclinesWhatItDoesNotTakeWhole(body: String) {
        #expect(Self.fast(body) == nil)
    }

    @Test func theReaderDeclinesMoreFixesThanARequestMayHold() {
        let fix = #"{"coordinate":{"latitude":1,"longitude":2},"timestamp":"2026-11-23T08:00:00Z","horizontalAccuracy":5}"#
        #expect(Self.fast(#"{"locations":[\#(Array(repeating: fix, count: 1_000).joined(separator: ","))]}"#)?.count == 1_000)
        #expect(Self.fast(#"{"locations":[\#(Array(repeating: fix, count: 1_001).joined(separator: ","))]}"#) == nil)
    }

    /// Every shape an answer can take: each status, skips, events with and without a previous
    /// location, a reason, interpolation, names with escapes and nested properties.
    @Test func theWriterWritesWhatTheGeneratedEncoderWrites() throws {
        var generator = SeededGenerator(seed: 6)
        func fix() -> LocationFix {
            LocationFix(
                coordinate: Coordinate(latitude: Double.random(in: -90...90, using: &generator), longitude: Double.random(in: -180...180, using: &generator)),
                timestamp: Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &generator)),
                horizontalAccuracy: [5, 0.1 + Double.random(in: 0...100, using: &generator)][Int.random(in: 0...1, using: &generator)],
                speed: Bool.random(using: &generator) ? Double.random(in: 0...60, using: &generator) : nil,
                course: Bool.random(using: &generator) ? [359.5, -0.0, 1e300, 5e-324][Int.random(in: 0...3, using: &generator)] : nil, altitude: Bool.random(using: &generator) ? -12 : nil,
                verticalAccuracy: Bool.random(using: &generator) ? 1e-7 : nil,
                attributes: Bool.random(using: &generator) ? ["batteryLevel": .number(0.53), "charging": .bool(false), "tid": .string("J\"J/é"),
                                                             "motion": .array([.string("driving"), .null]), "big": .number(1e21)] : [:])
        }
        let statuses: [FixStatus] = [.accepted, .duplicate, .late, .rejected(.invalidCoordinate), .rejected(.invalidAccuracy), .rejected(.future)]
            + IngestFilters.Rule.allCases.map(FixStatus.filtered)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for round in 0..<100 {
            let events = (0..<Int.random(in: 0...4, using: &generator)).map { index in
                TrackingEvent(
                    id: UUID().uuidString.lowercased(), sequence: Int64(round * 10 + index), subscriptionId: "s-\(index)",
                    subscriptionName: Bool.random(using: &generator) ? "Depot \"north\"/\u{1}\n é" : nil,
                    subscriptionProperties: Bool.random(using: &generator) ? ["site": .number(7), "ratio": .number(0.25), "tags": .array([.string("a/b"), .null, .bool(true)]), "n": .object(["z": .number(1e21), "a": .string("x")])] : [:],
                    deviceId: "van-\(index)", kind: TrackingEvent.Kind.allCases.randomElement(using: &generator)!,
                    reason: Bool.random(using: &generator) ? TrackingEvent.regionChanged : nil,
                    location: fix(), previousLocation: Bool.random(using: &generator) ? fix() : nil,
                    occurredAt: Instant(microseconds: 1_767_225_600_000_001), recordedAt: Instant(microseconds: 1_767_225_600_123_000),
                    interpolated: Bool.random(using: &generator))
            }
            let result = Tracker.IngestResult(
                results: (0..<Int.random(in: 0...6, using: &generator)).map { IngestPlan.Result(index: $0, status: statuses.randomElement(using: &generator)!) },
                skipped: Bool.random(using: &generator) ? [IngestPlan.Skip(index: 0, subscriptionId: "s-1", reason: .stale), IngestPlan.Skip(index: 2, subscriptionId: "s-2", reason: .accuracy)] : [],
                events: events)
            let generated = String(decoding: try encoder.encode(Components.Schemas.IngestAnswer(result)), as: UTF8.self)
            let fast = String(decoding: TrackingJSON.ingestAnswer(result), as: UTF8.self)
            #expect(fast == generated)
        }
    }

    /// Over HTTP: a body the reader takes goes the fast way, one it declines (an escaped key the
    /// generated decoding reads as `locations`) the generated way, and both answer the same for the same state.
    @Test func bothRoutesAnswerTheSameOverHTTP() async throws {
        try await TestApp.withClient { client in
            let fixes = [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(100), 10)]
            let fast = try await client.send(.post, "/v1/devices/a-1/locations", json: Trace.batch(fixes))
            let generated = try await client.send(.post, "/v1/devices/a-2/locations", json: Trace.batch(fixes).replacingOccurrences(of: "locations", with: #"locat\u0069ons"#))
            #expect(fast.status == .ok && generated.status == .ok)
            #expect(String(buffer: fast.body) == String(buffer: generated.body))
            let refused = try await client.send(.post, "/v1/devices/a-1/locations", json: Trace.batch(fixes).replacingOccurrences(of: "horizontalAccuracy", with: "accuracy"))
            #expect(refused.status == .badRequest)
        }
    }
}
