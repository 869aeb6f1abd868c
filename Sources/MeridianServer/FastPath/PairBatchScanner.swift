import Foundation

/// A strict scanner for the one JSON shape of the hottest batch endpoints:
/// `{"<batchKey>":[{"<first>":number,"<second>":number}, …]}`, keys in any order, any whitespace.
///
/// It answers nil for anything else (other fields, nulls, strings, nesting, duplicates, numbers
/// that are not finite) so the caller can hand the request to the generated decoder, which
/// produces the contract's errors. It never decides that input is invalid; it only declines.
struct PairBatchScanner {
    let batchKey: [UInt8]
    let firstKey: [UInt8]
    let secondKey: [UInt8]

    /// `{"coordinates":[{"latitude":…,"longitude":…}]}`, built once (generic middleware cannot hold statics).
    static let coordinates = PairBatchScanner(batchKey: "coordinates", first: "latitude", second: "longitude")
    /// `{"mapPoints":[{"x":…,"y":…}]}`.
    static let mapPoints = PairBatchScanner(batchKey: "mapPoints", first: "x", second: "y")

    init(batchKey: String, first: String, second: String) {
        self.batchKey = Array(batchKey.utf8)
        self.firstKey = Array(first.utf8)
        self.secondKey = Array(second.utf8)
    }

    /// The pairs, in input order, or nil when the body is not exactly the expected shape or
    /// holds more than `limit` items.
    func scan(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [(Double, Double)]? {
        var cursor = Cursor(bytes: bytes)
        guard cursor.expect(UInt8(ascii: "{")), cursor.expectKey(batchKey), cursor.expect(UInt8(ascii: "[")) else { return nil }
        var pairs: [(Double, Double)] = []
        pairs.reserveCapacity(min(limit, bytes.count / 24))
        if cursor.peek() == UInt8(ascii: "]") {
            cursor.advance()
        } else {
            while true {
                guard pairs.count < limit, let pair = scanPair(&cursor) else { return nil }
                pairs.append(pair)
                guard let separator = cursor.next() else { return nil }
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }
        guard cursor.expect(UInt8(ascii: "}")), cursor.atEnd() else { return nil }
        return pairs
    }

    private func scanPair(_ cursor: inout Cursor) -> (Double, Double)? {
        guard cursor.expect(UInt8(ascii: "{")) else { return nil }
        var first: Double?, second: Double?
        for index in 0..<2 {
            guard let key = cursor.string(), cursor.expect(UInt8(ascii: ":")), let value = cursor.number() else { return nil }
            if Self.equal(key, firstKey), first == nil { first = value }
            else if Self.equal(key, secondKey), second == nil { second = value }
            else { return nil }
            guard cursor.expect(index == 0 ? UInt8(ascii: ",") : UInt8(ascii: "}")) else { return nil }
        }
        guard let first, let second else { return nil }
        return (first, second)
    }

    @inline(__always)
    static func equal(_ slice: Slice<UnsafeRawBufferPointer>, _ key: [UInt8]) -> Bool {
        guard slice.count == key.count else { return false }
        var offset = slice.startIndex
        for byte in key {
            guard slice.base[offset] == byte else { return false }
            offset += 1
        }
        return true
    }
}

/// A position in a byte buffer, with the few JSON tokens the scanner needs.
private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func advance() { index += 1 }

    mutating func next() -> UInt8? {
        guard let byte = peek() else { return nil }
        index += 1
        return byte
    }

    mutating func expect(_ byte: UInt8) -> Bool {
        next() == byte
    }

    mutating func atEnd() -> Bool {
        peek() == nil
    }

    mutating func expectKey(_ key: [UInt8]) -> Bool {
        guard let found = string(), PairBatchScanner.equal(found, key) else { return false }
        return expect(UInt8(ascii: ":"))
    }

    /// A string without escapes (keys are plain ASCII); nil for anything else.
    mutating func string() -> Slice<UnsafeRawBufferPointer>? {
        guard next() == UInt8(ascii: "\"") else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return bytes[start..<index]
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON number, correctly rounded (see ``DecimalParser``); nil when malformed or not finite.
    mutating func number() -> Double? {
        skipWhitespace()
        guard let (value, length) = DecimalParser.parse(bytes, from: index) else { return nil }
        index += length
        return value
    }
}
