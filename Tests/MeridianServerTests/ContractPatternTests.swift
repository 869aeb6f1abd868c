import Annotations
import Foundation
import MapGeometry
import MeridianHTTP
@testable import MeridianServer
import OpenAPIRuntime
import TestSupport
import Testing
import Timeline
import Tracking

/// Where the contract states a rule as a `pattern`, the server's reader must accept exactly the
/// strings the pattern matches, no more (schemathesis sends what the pattern refuses) and no fewer
/// (and what it allows). Each reader is run beside the contract's own regular expression over
/// many strings near the rule's edges. (Every pattern ends `$(?!\n)`: Python's and ICU's `$`
/// also match before a final newline, ECMA-262's does not; with the look-ahead all three agree.)
@Suite(.watchdog) struct ContractPatternTests {
    static let contract = try! Contract.load()

    /// The `pattern` of a component schema, as the served contract says it.
    static func pattern(ofSchema name: String) throws -> NSRegularExpression {
        let components = try #require(contract.json.value["components"] as? [String: (any Sendable)?])
        let schemas = try #require(components["schemas"] as? [String: (any Sendable)?])
        let schema = try #require(schemas[name] as? [String: (any Sendable)?])
        // Unix line separators: only \n ends a line, as in Python's `re` (which schemathesis uses).
        return try NSRegularExpression(pattern: try #require(schema["pattern"] as? String), options: .useUnixLineSeparators)
    }

    /// The `pattern` of a component parameter's schema.
    static func pattern(ofParameter name: String) throws -> NSRegularExpression {
        let components = try #require(contract.json.value["components"] as? [String: (any Sendable)?])
        let parameters = try #require(components["parameters"] as? [String: (any Sendable)?])
        let parameter = try #require(parameters[name] as? [String: (any Sendable)?])
        var schema = try #require(parameter["schema"] as? [String: (any Sendable)?])
        // An array parameter's rule is its items'.
        if let items = schema["items"] as? [String: (any Sendable)?] { schema = items }
        return try NSRegularExpression(pattern: try #require(schema["pattern"] as? String), options: .useUnixLineSeparators)
    }

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// A two-digit field drawn around its valid range.
    static func field(_ random: inout SeededGenerator, _ upTo: Int, width: Int = 2) -> String {
        let value = Int(random.unit() * Double(upTo + 3))
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    @Test func timestampsReadExactlyWhatThePatternMatches() throws {
        let regex = try Self.pattern(ofSchema: "Timestamp")
        var random = SeededGenerator(seed: 14)
        func pick(_ options: [String]) -> String { options[Int(random.unit() * Double(options.count)) % options.count] }
        var accepted = 0
        for _ in 0..<20_000 {
            let year = pick(["0000", "0001", "0004", "0100", "0400", "1900", "2000", "2024", "2025", "9999", "999", "10000",
                             Self.field(&random, 9999, width: 4)])
            let date = "\(year)-\(Self.field(&random, 12))-\(Self.field(&random, 31))"
            let time = "\(Self.field(&random, 23)):\(Self.field(&random, 59)):\(Self.field(&random, 60))"
            let fraction = pick(["", "", ".", ".5", ".123456", ".1234567", ".x"])
            let zone = pick(["Z", "z", "+\(Self.field(&random, 23)):\(Self.field(&random, 59))", "-\(Self.field(&random, 23)):\(Self.field(&random, 59))", "", "+0100", " Z"])
            let text = date + pick(["T", "t", " ", "x", "TT"]) + time + fraction + zone
            let parsed = Instant(rfc3339: text)
            #expect((parsed != nil) == Self.matches(regex, text), "\(text)")
            if let parsed {
                accepted += 1
                // Every answer is itself a Timestamp, and reads back as the same instant.
                #expect(Self.matches(regex, parsed.rfc3339) && Instant(rfc3339: parsed.rfc3339) == parsed, "\(text) → \(parsed.rfc3339)")
            }
        }
        #expect(accepted > 1_000)  // the walk reached both sides of the rule
    }

    @Test func deviceIdsAndAnnotationKeysReadExactlyWhatThePatternsMatch() throws {
        let device = try Self.pattern(ofSchema: "DeviceIdentifier")
        let key = try Self.pattern(ofSchema: "AnnotationKey")
        let pieces = ["\n", "a", "Z", "0", ".", "..", "-", "_", ":", "@", " ", "/", "é", "\u{7}", "\u{7F}", "\u{85}", "\u{A0}", "東", "😀", "\u{301}"]
        var random = SeededGenerator(seed: 15)
        for _ in 0..<20_000 {
            let length = Int(random.unit() * 6)
            let text = (0..<length).map { _ in pieces[Int(random.unit() * Double(pieces.count)) % pieces.count] }.joined()
            #expect(DeviceIdentifier.isValid(text) == Self.matches(device, text), "\(text.debugDescription)")
            let content = AnnotationContent(coordinate: Coordinate(latitude: 0, longitude: 0), kind: text)
            // The pattern says what characters; minLength and maxLength say how many.
            let inLength = (1...256).contains(text.unicodeScalars.count)
            #expect(((try? content.validate()) != nil) == (inLength && Self.matches(key, text)), "\(text.debugDescription)")
        }
        #expect(DeviceIdentifier.isValid(String(repeating: "a", count: 128)) && !DeviceIdentifier.isValid(String(repeating: "a", count: 129)))
    }

    @Test func aggregateParametersReadExactlyWhatThePatternMatches() throws {
        let regex = try Self.pattern(ofParameter: "Aggregate")
        let pieces = [":", "sum", "max", "mean", "count", "min", "a", "é", "\n", "\u{301}", " ", "::", "Sum"]
        var random = SeededGenerator(seed: 17)
        for _ in 0..<20_000 {
            let length = Int(random.unit() * 5)
            let text = (0..<length).map { _ in pieces[Int(random.unit() * Double(pieces.count)) % pieces.count] }.joined()
            #expect(((try? AggregateParameter.kinds([text])) != nil) == Self.matches(regex, text), "\(text.debugDescription)")
        }
    }

    @Test func ifMatchReadsExactlyWhatThePatternMatches() throws {
        let regex = try Self.pattern(ofParameter: "IfMatch")
        let pieces = ["\"", "\"3\"", "W/", "*", ",", " ", "\t", "3", "a", "!", "%", "+", "\\", "\n", "é", "\u{7F}", "\"\""]
        var random = SeededGenerator(seed: 16)
        for _ in 0..<20_000 {
            let length = Int(random.unit() * 7)
            let text = (0..<length).map { _ in pieces[Int(random.unit() * Double(pieces.count)) % pieces.count] }.joined()
            // HTTP drops the spaces and tabs around a field value before the server sees it.
            let sent = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            // Empty is no condition (the handler's), which the pattern allows too.
            #expect((sent.isEmpty || EntityTagCondition(sent) != nil) == Self.matches(regex, sent), "\(sent.debugDescription)")
        }
        #expect(EntityTagCondition(#""3", W/"4""#) != nil && EntityTagCondition("") == nil && EntityTagCondition("3") == nil)
    }

    @Test func theBBoxPatternIsTheOneTheServerReadsWith() throws {
        #expect(try Self.pattern(ofSchema: "BBoxText").pattern == BoundingBox.queryPattern)
        #expect(throws: FieldError.self) { try BoundingBox(parsing: "1,2,3,4\n") }
    }

    @Test func countsReadExactlyWhatTheCursorPatternMatches() throws {
        let regex = try NSRegularExpression(pattern: #"^(0|[1-9][0-9]{0,17})$(?!\n)"#, options: .useUnixLineSeparators)
        let texts = ["0", "0\n", "7", "10", "007", "-1", "+5", "", " 1", "1 ", "0x10", "1e3", "999999999999999999", "1000000000000000000", "٣"]
        for text in texts {
            #expect(((try? Paging.count(text, parameter: "cursor")) != nil) == Self.matches(regex, text), "\(text)")
        }
        // The served contract states the same pattern for the tile and delivery cursors and Last-Event-ID.
        let yaml = Self.contract.text
        #expect(yaml.components(separatedBy: #"'^(0|[1-9][0-9]{0,17})$(?!\n)'"#).count == 3)
        #expect(yaml.contains(#"'^(0|[1-9][0-9]{0,17})?$(?!\n)'"#))
    }
}
