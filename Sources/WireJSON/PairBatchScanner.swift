/// A strict scanner for the one JSON shape of the hottest batch endpoints:
/// `{"<batchKey>":[{"<first>":number,"<second>":number}, …]}`, keys in any order, any whitespace.
///
/// It answers nil for anything else (other fields, nulls, strings, nesting, duplicates, numbers
/// that are not finite) so the caller can hand the request to the generated decoder, which
/// produces the contract's errors. It never decides that input is invalid; it only declines.
public struct PairBatchScanner: Sendable {
    let batchKey: [UInt8]
    let firstKey: [UInt8]
    let secondKey: [UInt8]

    public init(batchKey: String, first: String, second: String) {
        self.batchKey = Array(batchKey.utf8)
        self.firstKey = Array(first.utf8)
        self.secondKey = Array(second.utf8)
    }

    /// The pairs, in input order, or nil when the body is not exactly the expected shape or
    /// holds more than `limit` items.
    public func scan(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [(Double, Double)]? {
        JSONValueParser.batch(bytes, key: batchKey, limit: limit, itemBytes: 24) { scanPair(&$0) }
    }

    private func scanPair(_ parser: inout JSONValueParser) -> (Double, Double)? {
        guard parser.consume(UInt8(ascii: "{")) else { return nil }
        var first: Double?, second: Double?
        for index in 0..<2 {
            guard let key = parser.plainString(), parser.consume(UInt8(ascii: ":")), let value = parser.number() else { return nil }
            if JSONValueParser.equal(key, firstKey), first == nil { first = value }
            else if JSONValueParser.equal(key, secondKey), second == nil { second = value }
            else { return nil }
            guard parser.consume(index == 0 ? UInt8(ascii: ",") : UInt8(ascii: "}")) else { return nil }
        }
        guard let first, let second else { return nil }
        return (first, second)
    }
}

extension JSONValueParser {
    /// `{"<key>":[item, …]}` and nothing else, each item read by `item`; nil when the body is not
    /// exactly that, an item is not read, or there are more than `limit` items.
    /// - Parameter itemBytes: the fewest bytes an item takes, to reserve room.
    public static func batch<Item>(
        _ bytes: UnsafeRawBufferPointer, key batchKey: [UInt8], limit: Int, itemBytes: Int, item: (inout JSONValueParser) -> Item?
    ) -> [Item]? {
        var parser = JSONValueParser(bytes: bytes)
        guard parser.consume(UInt8(ascii: "{")), let key = parser.plainString(), equal(key, batchKey),
              parser.consume(UInt8(ascii: ":")), parser.consume(UInt8(ascii: "["))
        else { return nil }
        var items: [Item] = []
        items.reserveCapacity(min(limit, bytes.count / itemBytes))
        if !parser.consume(UInt8(ascii: "]")) {
            repeat {
                guard items.count < limit, let next = item(&parser) else { return nil }
                items.append(next)
            } while parser.consume(UInt8(ascii: ","))
            guard parser.consume(UInt8(ascii: "]")) else { return nil }
        }
        guard parser.consume(UInt8(ascii: "}")), parser.atEnd() else { return nil }
        return items
    }
}
