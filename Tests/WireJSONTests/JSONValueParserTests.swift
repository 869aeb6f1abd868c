import Foundation
import Testing
import WireJSON

/// The import fast path must read what Foundation reads, and decline everything else.
@Suite struct JSONValueParserTests {
    func parse(_ text: String) -> JSONValue? {
        Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0) }
    }

    func foundation(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(arguments: [
        #"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d"}}"#, #"  [ ]  "#, #"{}"#, #""\u00e9\ud83d\ude00\n\t\"\\\/""#,
        "0", "-0.0", "1E+2", #"["naïve 東京"]"#, #"{"k":[[[[]]]]}"#,
    ])
    func readsWhatFoundationReads(_ text: String) throws {
        let value = try #require(parse(text))
        #expect(value == foundation(text))
    }

    @Test(arguments: [
        "", "{", "[1,]", #"{"dup":1,"dup":2}"#, #"{"a":1,}"#, #"{"a" 1}"#, "[1 2]", "tru", "nul", #""unterminated"#, "\"tab\there\"", #""\x""#,
        #""\ud800""#, #""\udc00x""#, "01", "[1] [2]", "{'a':1}", #"{"a":1}x"#,
    ])
    func declinesWhatIsNotJSON(_ text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test func randomDocumentsReadBackFromFoundationsEncoderAndTheCanonicalText() throws {
        var random = SystemRandomNumberGenerator()
        func text(_ random: inout SystemRandomNumberGenerator) -> String {
            let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "東", "😀", "\u{7F}"]
            var result = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...10, using: &random) { result.append(alphabet.randomElement(using: &random)!) }
            return String(result)
        }
        func value(_ depth: Int, _ random: inout SystemRandomNumberGenerator) -> JSONValue {
            switch Int.random(in: 0...(depth > 2 ? 4 : 6), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .number(Double.random(in: -1e12...1e12, using: &random) * pow(10, Double(Int.random(in: -20...20, using: &random))))
            case 3: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
            case 4: return .string(text(&random))
            case 5: return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth + 1, &random) })
            default:
                var members: [String: JSONValue] = [:]
                for _ in 0..<Int.random(in: 0...5, using: &random) { members[text(&random)] = value(depth + 1, &random) }
                return .object(members)
            }
        }
        for _ in 0..<2_000 {
            let document = value(0, &random)
            let encoded = String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
            #expect(parse(encoded) == document, "\(encoded)")
            #expect(parse(document.canonicalText) == document, "\(document.canonicalText)")
            #expect(foundation(document.canonicalText) == document, "\(document.canonicalText)")
        }
    }
}

@Suite struct CanonicalSizeTests {
    @Test func theCountedSizeIsTheWrittenSize() {
        var random = SystemRandomNumberGenerator()
        let samples: [JSONValue] = [
            .null, .bool(true), .bool(false), .number(0), .number(-0.0), .number(-12345), .number(9_007_199_254_740_991), .number(1e300),
            .number(-2.5e-7), .string("a\"b\\c\n\t\r\u{01}é東😀"), .array([]), .object([:]),
            .object(["k": .array([.number(1), .null, .object(["x": .string("y")])]), "": .bool(false)]),
        ] + (0..<500).map { _ in .number(Double.random(in: -1e16...1e16, using: &random).rounded()) }
        for value in samples {
            #expect(value.canonicalByteCount == value.canonicalText.utf8.count, "\(value.canonicalText)")
        }
    }
}

/// The body check every JSON request passes: a repeated key or a null the schema forbids, at its path.
@Suite struct JSONBodyCheckTests {
    static let shape = NullShape(nullable: false, members: [
        "name": NullShape(nullable: false),
        "note": NullShape(nullable: true),
        "items": NullShape(nullable: false, items: NullShape(nullable: false, members: ["x": NullShape(nullable: false)])),
    ])

    func check(_ text: String, _ shape: NullShape? = shape) -> JSONBodyCheck.Finding? {
        Array(text.utf8).withUnsafeBytes { JSONBodyCheck.first(in: $0, nulls: shape) }
    }

    @Test(arguments: [
        (#"{"name":"a","note":null,"free":null,"items":[{"x":1,"y":null}]}"#, nil),
        (#"{"name":null}"#, JSONBodyCheck.Finding.null(["name"])),
        (#"{"items":[{"x":1},{"x":null}]}"#, .null(["items", "1", "x"])),
        (#"{"items":[null]}"#, .null(["items", "0"])),
        (#"{"items":[{"x":1,"x":2}]}"#, .repeatedKey(["items", "0", "x"])),
        (#"{"name":"a","name":null}"#, .repeatedKey(["name"])),
        (#"{"name": null , "note":1}"#, .null(["name"])),
    ])
    func findsTheFirstProblemAtItsPath(text: String, finding: JSONBodyCheck.Finding?) {
        #expect(check(text) == finding)
    }

    @Test func withoutAShapeNullIsAnywhereButKeysStillRepeatNowhere() {
        #expect(check(#"{"name":null,"items":[null]}"#, nil) == nil)
        #expect(check(#"{"a":{"b":1,"b":1}}"#, nil) == .repeatedKey(["a", "b"]))
        #expect(check(#"{"a":nul}"#) == nil)  // not JSON: the decoder explains
    }
}
