import Annotations
import MapGeometry
import Testing
import WireJSON

/// CQL2 compares numbers by their exact value, in both encodings: a literal keeps every digit and
/// any exponent, and so does a property.
@Suite struct FilterExactNumberTests {
    static let annotation = FilterTests.annotation(48.85, 2.35, properties: try! FilterTests.json(
        #"{"big":9007199254740993,"tiny":1e-400,"huge":1e400,"long":123456789012345678901234567890,"tenth":0.1,"negative":-1.5e+300}"#
    ).objectValue!)

    @Test(arguments: [
        ("big = 9007199254740993", true), ("big = 9007199254740992", false), ("big > 9007199254740992", true),
        ("big < 9007199254740994", true), ("big BETWEEN 9007199254740993 AND 9007199254740993", true),
        ("big IN (9007199254740992, 9007199254740994)", false),
        ("tiny > 0", true), ("tiny = 0", false), ("tiny = 1e-400", true), ("tiny = 10e-401", true), ("tiny < 1.0000000000000000001e-400", true),
        ("huge = 1e400", true), ("huge > 1.7976931348623157e308", true), ("huge < 1e401", true),
        ("long = 123456789012345678901234567890", true), ("long = 1.2345678901234567890123456789e29", true),
        ("long = 123456789012345678901234567891", false), ("tenth = 0.1", true), ("tenth = 0.10000000000000001", false),
        ("negative = -1.5e300", true), ("negative < -1.4999999999999999999e300", true),
    ])
    func comparesExactlyInTextAndJSON(_ text: String, _ expected: Bool) throws {
        let filter = try Filter(text: text)
        #expect(filter.matches(Self.annotation) == expected, "\(text)")
        // Its CQL2-JSON, written and read back, keeps the literals exactly.
        let json = try #require(Array(filter.json.canonicalText.utf8).withUnsafeBytes { JSONValueParser.parse($0) })
        let fromJSON = try Filter(json: json)
        #expect(fromJSON == filter && fromJSON.matches(Self.annotation) == expected, "\(filter.json.canonicalText)")
    }

    @Test func cql2SpellingsOfANumberKeepTheirValue() throws {
        #expect(try Filter(text: "big = +9007199254740993") == Filter(text: "big = 9007199254740993"))
        #expect(try Filter(text: "tenth = .1") == Filter(text: "tenth = 0.1"))
        #expect(try Filter(text: "tenth = -.5") == Filter(text: "tenth = -0.5"))
        #expect(try Filter(text: "tenth = 5.") == Filter(text: "tenth = 5"))
        #expect(throws: FieldError.self) { try Filter(text: "tenth = 1e1000000000") }
    }
}
