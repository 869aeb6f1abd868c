/// The fields of an `application/x-www-form-urlencoded` text (a query string or a form body), in
/// order, decoded as the WHATWG URL standard says: `+` is a space, `%XX` a byte, the bytes UTF-8.
struct FormFields: Sequence {
    private(set) var fields: [(name: String, value: String)] = []

    /// Nil when a `%` escape is not two hex digits or the decoded bytes are not UTF-8.
    init?(_ text: Substring) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields.append((name, value))
        }
    }

    /// Adds `other`'s fields after these.
    mutating func append(contentsOf other: FormFields) { fields += other.fields }

    /// Every value of `name`, in order.
    func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// The last value of `name`, or nil.
    subscript(name: String) -> String? { fields.last { $0.name == name }?.value }

    func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    private static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
