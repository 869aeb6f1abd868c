import Foundation
import PropertyBased
import Testing
import WireJSON

/// The hot-path scanner must read exactly what Foundation reads, and decline everything else.
@Suite struct DecimalParserTests {
    func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            DecimalParser.parse(UnsafeRawBufferPointer(buffer), from: 0).flatMap { $0.1 == buffer.count ? $0.0 : nil }
        }
    }

    @Test func shortestFormsOfRandomDoublesParseBitExactly() async {
        await propertyCheck(count: 20_000, input: Gen.double(in: -1e9...1e9), Gen.int(in: -30...30)) { value, scale in
            let scaled = value * pow(10, Double(scale))
            let text = scaled.description
            #expect(parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test func randomDecimalsParseLikeTheStandardLibrary() async {
        await propertyCheck(count: 20_000, input: Gen.int(in: 0...Int.max), Gen.int(in: 1...24), Gen.int(in: -40...40), Gen.bool) { digits, length, exponent, negative in
            let mantissa = String(String(digits).prefix(length))
            let cut = mantissa.index(mantissa.startIndex, offsetBy: mantissa.count / 2)
            let text = (negative ? "-" : "") + mantissa[..<cut].drop(while: { $0 == "0" }).description.ifEmpty("0") + "." + mantissa[cut...].description.ifEmpty("0") + "e\(exponent)"
            #expect(parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test(arguments: ["", "-", "01", "1.", ".5", "1e", "1e+", "--1", "0x10", "1e400", "-1e400", "NaN", "Infinity"])
    func malformedOrNonFiniteNumbersAreDeclined(_ text: String) {
        #expect(parse(text) == nil)
    }

}

/// The conversion batch scanner reads exactly its one shape and declines everything else.
@Suite struct PairBatchScannerTests {
    @Test(arguments: [
        #"{"coordinates":[{"latitude":1,"longitude":2,"extra":3}]}"#,
        #"{"coordinates":[{"latitude":1,"latitude":2}]}"#,
        #"{"coordinates":[{"latitude":null,"longitude":2}]}"#,
        #"{"coordinates":[{"latitude":"1","longitude":2}]}"#,
        #"{"coordinates":[{"latitude":1,"longitude":2}],"more":1}"#,
        #"{"coordinates":[{"latitude":1,"longitude":2}]} x"#,
        #"{"coordinates":[{"latitude":1,"longitude":2},]}"#,
        #"{"coord\u0069nates":[]}"#,
        #"{"coordinates":[{"latitude":1,"longitude":2}"#,
    ])
    func anyOtherShapeIsDeclined(_ json: String) {
        let scanner = PairBatchScanner(batchKey: "coordinates", first: "latitude", second: "longitude")
        var bytes = Array(json.utf8)
        let result = bytes.withUnsafeMutableBytes { scanner.scan(UnsafeRawBufferPointer($0), limit: 10) }
        #expect(result == nil)
    }

    @Test func theExpectedShapeIsReadInAnyKeyOrderAndSpacing() {
        let scanner = PairBatchScanner(batchKey: "coordinates", first: "latitude", second: "longitude")
        var bytes = Array(" { \"coordinates\" : [ {\"longitude\": -2.5 ,\"latitude\":1e1} ,{\"latitude\":0,\"longitude\":0}\n] } ".utf8)
        let result = bytes.withUnsafeMutableBytes { scanner.scan(UnsafeRawBufferPointer($0), limit: 10) }
        #expect(result?.map(\.0) == [10, 0] && result?.map(\.1) == [-2.5, 0])
        #expect(bytes.withUnsafeMutableBytes { scanner.scan(UnsafeRawBufferPointer($0), limit: 1) } == nil)
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
