import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import PropertyBased
import Testing
import TestSupport
@testable import AnnotationIndex
import Timeline
import Tracking
import WireJSON

@testable import MeridianServer

/// For each hot type, its two encodings in its `<Type>+Wire.swift` (the generated type's mapping,
/// encoded as the runtime encodes it, and the fast routes' direct writer) write the same bytes,
/// for random values of every shape the type can take.
@Suite(.watchdog) struct WirePropertyTests {
    /// The runtime's encoder, with the configuration ``APICoding`` gives it.
    static func encoded<Value: Encodable>(_ value: @autoclosure () -> Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try APICoding.configuration.dateTranscoder.encode(date))
        }
        // As the runtime's answers are: numbers no Double prints as are put back (ExactNumbersMiddleware).
        return String(decoding: try ExactNumbers.encoding { try [UInt8](encoder.encode(value())) }, as: UTF8.self)
    }

    /// Text with what JSON must escape (quotes, backslashes, controls, slashes) and beyond ASCII.
    static func text(_ random: inout SeededGenerator) -> String {
        let pieces = ["a", "Café", "\"", "\\", "/", "\n", "\u{1}", "\u{7F}", "😀", " ", "z", "\u{2028}"]
        return (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A number of any magnitude JSON can carry, integral or not, negative zero included.
    static func number(_ random: inout SeededGenerator) -> Double {
        [0, -0.0, 1, -12, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, Double(Int.random(in: -1_000_000...1_000_000, using: &random)),
         Double.random(in: -1e6...1e6, using: &random)].randomElement(using: &random)!
    }

    /// Numbers only their text says exactly: beyond a Double's digits or range.
    static let exactNumbers = ["9007199254740993", "1e-400", "-1e400", "123456789012345678901234567890", "0.10000000000000001"].map { JSONNumber($0)! }

    /// Free properties: nested objects and arrays of every JSON value.
    static func properties(_ random: inout SeededGenerator, depth: Int = 0) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...(depth == 0 ? 4 : 2), using: &random) {
            let value: JSONValue = switch Int.random(in: 0...5, using: &random) {
            case 0: .null
            case 1: .bool(Bool.random(using: &random))
            case 2: .number(Bool.random(using: &random) ? JSONNumber(number(&random)) : exactNumbers.randomElement(using: &random)!)
            case 3: .string(text(&random))
            case 4 where depth < 2: .array([.number(number(&random)), .object(properties(&random, depth: depth + 1))])
            default: depth < 2 ? .object(properties(&random, depth: depth + 1)) : .string("leaf")
            }
            members[text(&random)] = value
        }
        return members
    }

    /// `make`'s value or, as often, nil.
    static func maybe<T>(_ random: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
        Bool.random(using: &random) ? make(&random) : nil
    }

    static func coordinate(_ random: inout SeededGenerator) -> Coordinate {
        Coordinate(latitude: Double.random(in: -90...90, using: &random), longitude: Double.random(in: -180...180, using: &random))
    }

    /// A time the store could hold: a whole millisecond.
    static func date(_ random: inout SeededGenerator) -> Date {
        Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_000_000_000_000, using: &random)) / 1_000)
    }

    @Test func anAnnotationIsWrittenAlikeBothWays() async throws {
        let ids = UUIDv7Generator()
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let content = AnnotationContent(
                externalId: Self.maybe(&random, Self.text), coordinate: Self.coordinate(&random),
                title: Self.maybe(&random, Self.text), subtitle: Self.maybe(&random, Self.text),
                kind: Self.maybe(&random, Self.text), clusteringIdentifier: Self.maybe(&random, Self.text),
                displayPriority: Int.random(in: 0...1000, using: &random), properties: Self.properties(&random))
            let annotation = Annotation(id: ids.next(), content: content, version: Int.random(in: 1...1_000_000, using: &random),
                                        createdAt: Self.date(&random), updatedAt: Self.date(&random))
            var json = JSONWriter()
            AnnotationJSON.write(annotation, to: &json)
            let generated = try Self.encoded(Components.Schemas.Annotation(annotation))
            #expect(json.text == generated)
        }
    }

    static func fix(_ random: inout SeededGenerator) -> LocationFix {
        LocationFix(
            coordinate: coordinate(&random), timestamp: Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &random)),
            horizontalAccuracy: abs(number(&random)), speed: maybe(&random, number), course: maybe(&random, number),
            altitude: maybe(&random, number), verticalAccuracy: maybe(&random) { abs(number(&$0)) },
            attributes: properties(&random))
    }

    @Test func aFixIsWrittenAlikeBothWays() async throws {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let fix = Self.fix(&random)
            var json = JSONWriter()
            TrackingJSON.write(fix, to: &json)
            let generated = try Self.encoded(Components.Schemas.Fix(fix))
            #expect(json.text == generated)
        }
    }

    @Test func anEventIsWrittenAlikeBothWays() async throws {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let event = TrackingEvent(
                id: UUID().uuidString.lowercased(), sequence: Int64.random(in: 1...Int64.max, using: &random), subscriptionId: Self.text(&random),
                subscriptionName: Self.maybe(&random, Self.text), subscriptionProperties: Self.properties(&random),
                deviceId: Self.text(&random), kind: TrackingEvent.Kind.allCases.randomElement(using: &random)!,
                reason: Self.maybe(&random) { _ in TrackingEvent.regionChanged }, location: Self.fix(&random), previousLocation: Self.maybe(&random, Self.fix),
                occurredAt: Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &random)),
                recordedAt: Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &random)),
                interpolated: Bool.random(using: &random),
                visit: Self.maybe(&random) { random in
                    Visit(centre: Self.coordinate(&random), horizontalAccuracy: abs(Self.number(&random)),
                          arrival: Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &random)),
                          departure: Self.maybe(&random) { Instant(microseconds: Int64.random(in: 0...4_000_000_000_000_000, using: &$0)) })
                })
            var json = JSONWriter()
            TrackingJSON.write(event, to: &json)
            let generated = try Self.encoded(Components.Schemas.Event(event))
            #expect(json.text == generated)
        }
    }

    @Test func aClusterIsWrittenAlikeBothWays() async throws {
        let ids = UUIDv7Generator()
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let grid = ThinningGrid(zoom: Int.random(in: 0...22, using: &random), cellSize: [16, 64, 512].randomElement(using: &random)!)
            let id = ClusterID(grid: grid, column: Int.random(in: 0...1000, using: &random), row: Int.random(in: 0...1000, using: &random),
                               clusteringIdentifier: Self.maybe(&random, Self.text), kinds: nil, minDisplayPriority: nil)
            let origin = Mercator.mapPoint(for: Self.coordinate(&random))
            let size = MapSize(width: Double.random(in: 0...1e6, using: &random), height: Double.random(in: 0...1e6, using: &random))
            var kindCounts: [String: Int] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) { kindCounts[Self.text(&random)] = Int.random(in: 1...10_000, using: &random) }
            var cluster = ThinnedCluster(
                id: id, count: Int.random(in: 2...1_000_000, using: &random),
                centroid: MapPoint(x: origin.x + size.width / 2, y: origin.y + size.height / 2), bounds: MapRect(origin: origin, size: size),
                expansionZoom: Self.maybe(&random) { Int.random(in: 1...22, using: &$0) }, kindCounts: kindCounts, representative: ids.next())
            cluster.weight = Self.maybe(&random) { Double.random(in: 0...1e9, using: &$0) }
            // Aggregates asked for, some properties without a value among the members.
            var kinds: [String: [AggregateKind]] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let property = Self.text(&random)
                kinds[property] = AggregateKind.allCases.filter { _ in Bool.random(using: &random) }.sorted()
                if kinds[property]!.isEmpty { kinds[property] = [.sum] }
                let low = Double.random(in: -1e6...1e6, using: &random)
                cluster.aggregates[property] = Bool.random(using: &random)
                    ? PropertyAggregate(count: Int.random(in: 1...1000, using: &random), sum: Double.random(in: -1e9...1e9, using: &random), min: low, max: low + 5)
                    : PropertyAggregate(nil)
            }
            let generated = try Self.encoded(Components.Schemas.Cluster(cluster, aggregateKinds: kinds))
            #expect(String(decoding: ClusterJSON.write(cluster, aggregateKinds: kinds), as: UTF8.self) == generated)
        }
    }

    @Test func anImportAnswerIsWrittenAlikeBothWays() async throws {
        let ids = UUIDv7Generator()
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var random = SeededGenerator(seed: UInt64(seed))
            let statuses: [WriteStatus] = [.created, .updated, .unchanged]
            let results: GeoJSONImport.Results = (0..<Int.random(in: 0...20, using: &random)).map { _ in (ids.next(), statuses.randomElement(using: &random)!) }
            let generated = try Self.encoded(Components.Schemas.ImportAnswer(results))
            #expect(String(decoding: ImportAnswerWriter.write(results), as: UTF8.self) == generated)
        }
    }
}
