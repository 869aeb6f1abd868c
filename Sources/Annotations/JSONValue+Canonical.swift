extension JSONValue {
    /// Compact JSON with object keys sorted: one spelling per value, so equal values have equal
    /// text. Storage keeps `properties` in this form and idempotency keys compare requests by it.
    ///
    /// Whole numbers below 2^53 print as integers (`3`, not `3.0`); others in Swift's shortest
    /// round-tripping form. Strings escape `"`, `\` and control characters, nothing else.
    public var canonicalText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The UTF-8 length of ``canonicalText``, counted without writing it.
    public var canonicalByteCount: Int {
        switch self {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                var magnitude = Int64(value).magnitude, digits = 1
                while magnitude >= 10 { magnitude /= 10; digits += 1 }
                return digits + (value < 0 ? 1 : 0)
            }
            return String(value).utf8.count
        case .string(let value): return Self.stringByteCount(value)
        case .array(let values): return 2 + max(0, values.count - 1) + values.reduce(0) { $0 + $1.canonicalByteCount }
        case .object(let members):
            return 2 + max(0, members.count - 1) + members.reduce(0) { $0 + Self.stringByteCount($1.key) + 1 + $1.value.canonicalByteCount }
        }
    }

    private static func stringByteCount(_ value: String) -> Int {
        var count = 2
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): count += 2
            case 0..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }

    /// Canonical text of an object's members.
    public static func canonicalText(of members: [String: JSONValue]) -> String {
        JSONValue.object(members).canonicalText
    }

    /// Appends the canonical text (sorted keys, no spaces).
    public func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                bytes += String(Int64(value)).utf8
            } else {
                bytes += String(value).utf8
            }
        case .string(let value): Self.writeString(value, to: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string (quotes, escapes for `"`, `\\` and control characters).
    public static func writeString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += #"\""#.utf8
            case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
            case UInt8(ascii: "\n"): bytes += #"\n"#.utf8
            case UInt8(ascii: "\r"): bytes += #"\r"#.utf8
            case UInt8(ascii: "\t"): bytes += #"\t"#.utf8
            case 0..<0x20: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
