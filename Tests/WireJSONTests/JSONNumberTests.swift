import Foundation
import Testing
import WireJSON

/// Exact numbers against Python's `decimal` module: each expected text below was checked with
/// `Decimal(expected) == Decimal(input)`, "kept as text" is `Decimal(repr(float(input))) != Decimal(input)`
/// (the shortest Double text is another value), and the order is `sorted(inputs, key=Decimal)`
/// (Python 3, `getcontext().prec = 100`).
@Suite struct JSONNumberTests {
    /// Input, the text written, and whether it is kept as text (no Double prints it).
    static let cases: [(input: String, written: String, exact: Bool)] = [
        ("9007199254740993", "9007199254740993", true),
        ("1e-400", "1e-400", true),
        ("1E+2", "100", false),
        ("123456789012345678901234567890", "123456789012345678901234567890", true),
        ("0.1", "0.1", false),
        ("-1.5e+300", "-1.5e+300", false),
        ("1e400", "1e+400", true),
        ("-0", "-0", false),
        ("0.0", "0", false),
        ("100", "100", false),
        ("1.50", "1.5", false),
        ("-0.000000123", "-1.23e-07", false),
        ("0.00000001234", "1.234e-08", false),
        ("12345678901234567890123", "12345678901234567890123", true),
        ("1e21", "1e+21", false),
        ("2.5e-7", "2.5e-07", false),
        ("-1e-400", "-1e-400", true),
        ("9007199254740992", "9007199254740992.0", false),
        ("5e-324", "5e-324", false),
        ("1.7976931348623159e308", "1.7976931348623159e+308", true),
        ("0.1000000000000000055511151231257827021181583404541015625", "0.1000000000000000055511151231257827021181583404541015625", true),
        ("-0.00000000000000000000000000000000000000012e-5", "-1.2e-45", false),
        ("0.00000012345678901234567890", "0.0000001234567890123456789", true),
        ("1e999999999", "1e+999999999", true),
    ]

    /// `sorted(inputs, key=Decimal)`, Python's order; neighbours it keeps in input order are equal here
    /// when Python's `==` says so (`-0`, `0.0`; `1E+2`, `100`).
    static let pythonOrder = [
        "-1.5e+300", "-0.000000123", "-0.00000000000000000000000000000000000000012e-5", "-1e-400", "-0", "0.0", "1e-400", "5e-324",
        "0.00000001234", "0.00000012345678901234567890", "2.5e-7", "0.1", "0.1000000000000000055511151231257827021181583404541015625",
        "1.50", "1E+2", "100", "9007199254740992", "9007199254740993", "1e21", "12345678901234567890123",
        "123456789012345678901234567890", "1.7976931348623159e308", "1e400", "1e999999999",
    ]

    @Test(arguments: cases.indices)
    func keepsTheExactValueInOneSpelling(_ index: Int) throws {
        let (input, written, exact) = Self.cases[index]
        let number = try #require(JSONNumber(input))
        #expect(number.description == written, "\(input)")
        #expect((number.exactText != nil) == exact, "\(input)")
        #expect(JSONNumber(written) == number, "\(input): its text reads back as itself")
        var writer = JSONWriter()
        writer.value(.object(["n": .number(number)]))
        #expect(writer.text == #"{"n":\#(written)}"#)
        #expect(JSONValue.object(["n": .number(number)]).canonicalByteCount == writer.bytes.count)
    }

    @Test func ordersAndComparesByExactValue() throws {
        let numbers = try Self.pythonOrder.map { try #require(JSONNumber($0)) }
        for (lower, higher) in zip(numbers, numbers.dropFirst()) {
            let equal = Set([lower.description, higher.description]) == ["-0", "0"] || lower.description == higher.description
            #expect(equal ? lower == higher && !(lower < higher) && !(higher < lower) : lower < higher && !(higher < lower),
                    "\(lower) then \(higher)")
        }
        #expect(JSONNumber("9007199254740993") != JSONNumber("9007199254740992"))
        #expect(JSONNumber("9007199254740993")?.double == 9007199254740992)
        #expect(JSONNumber("1e-400") != JSONNumber("0"))
        #expect(JSONNumber("1e-400")! > JSONNumber("0")!)
        #expect(Set([JSONNumber("1E+2")!, JSONNumber("100")!, JSONNumber(100.0)]).count == 1)
    }

    @Test(arguments: ["1e1000000000", "-1E-0000000001234567890", "+1", ".5", "01", "1.", "1e", "--1", "0x10", ""])
    func refusesWhatIsNotAJSONNumberWithinTheLimits(_ text: String) {
        #expect(JSONNumber(text) == nil, "\(text)")
    }

    @Test func aLongExponentWrittenWithLeadingZerosIsItsValue() {
        #expect(JSONNumber("1e0000000000000000002")?.description == "100")
    }

    @Test func parsedValuesWriteBackExactly() throws {
        let text = #"{"a":9007199254740993,"b":[1e-400,1E+2,123456789012345678901234567890,0.1,-1.5e+300,1e400],"c":0.5}"#
        let value = try #require(Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0) })
        #expect(value.canonicalText == #"{"a":9007199254740993,"b":[1e-400,100,123456789012345678901234567890,0.1,-1.5e+300,1e+400],"c":0.5}"#)
    }

    @Test func decoderRefusedNumbersGetStandIns() throws {
        let body = Array(#"{"a":1e400,"b":"1e400 \"-1e-400","c":[-1e-400,0e-999,2,-1.8e308],"d":9007199254740993}"#.utf8)
        let json = RequestJSON(body)
        func mark(_ text: String) -> String { "{\"" + ExactNumbers.mark(text) + "\":null}" }
        #expect(String(decoding: json.decodable, as: UTF8.self)
            == #"{"a":\#(mark("1e400")),"b":"1e400 \"-1e-400","c":[\#(mark("-1e-400")),0e-999,2,\#(mark("-1.8e308"))],"d":9007199254740993}"#)
        #expect(RequestJSON(Array(#"{"a":1.5}"#.utf8)).decodable == Array(#"{"a":1.5}"#.utf8))
        // Foundation's decoder reads the stand-ins; JSONValue takes the exact values in their place.
        let decoded = try RequestJSON.decoding(body) { try JSONDecoder().decode(JSONValue.self, from: Data($0)) }
        #expect(decoded == Array(body).withUnsafeBytes { JSONValueParser.parse($0) })
        // A typed number field given one is refused, as Foundation refuses the number itself.
        #expect(throws: DecodingError.self) { try RequestJSON.decoding(Array(#"{"x":1e400}"#.utf8)) { try JSONDecoder().decode([String: Double].self, from: Data($0)) } }
        // So is a typed string field: the stand-in is never a string that could be stored.
        #expect(throws: DecodingError.self) { try RequestJSON.decoding(Array(#"{"x":1e400}"#.utf8)) { try JSONDecoder().decode([String: String].self, from: Data($0)) } }
    }
}
