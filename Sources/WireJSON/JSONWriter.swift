/// The one JSON writer of every hand-written answer and of stored canonical JSON: compact, keys in
/// the order written (callers write them sorted, as the generated encoder does), strings escaped
/// for `"`, `\` and control characters only, and numbers by one rule (``exactInteger(_:)``).
///
/// ```swift
/// var json = JSONWriter()
/// json.raw("{\"x\":"); json.number(42.0); json.raw(",\"y\":"); json.number(0.5); json.raw("}")
/// json.text  // {"x":42,"y":0.5}
/// ```
public struct JSONWriter: Sendable {
    /// The UTF-8 written so far.
    public var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The integer a whole, exactly representable Double prints as (`3`, not `3.0`); nil for any
    /// other value, which prints in Swift's shortest round-tripping form. Below 2^53 every integer
    /// is exact in a Double, so the integer text reads back as the same Double. Negative zero is
    /// not an integer here: it prints `-0`, as Foundation's encoder writes it.
    @inlinable
    public static func exactInteger(_ value: Double) -> Int64? {
        value == value.rounded(.towardZero) && abs(value) < 9_007_199_254_740_992 && !(value == 0 && value.sign == .minus) ? Int64(value) : nil
    }

    /// Literal JSON text (punctuation, keys known at compile time).
    @inlinable
    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Literal JSON text built at run time.
    @inlinable
    public mutating func raw(_ text: String) {
        bytes += text.utf8
    }

    @inlinable
    public mutating func int(_ value: Int) {
        bytes += String(value).utf8
    }

    /// A finite number by the one rule: an integer when whole and exact, else the shortest round-trip form.
    @inlinable
    public mutating func number(_ value: Double) {
        if let integer = Self.exactInteger(value) {
            bytes += String(integer).utf8
        } else if value == 0 {
            raw("-0")
        } else {
            bytes += value.description.utf8
        }
    }

    /// A JSON number: its exact text, or the Double's by the one rule.
    @inlinable
    public mutating func number(_ value: JSONNumber) {
        if let text = value.exactText { bytes += text.utf8 } else { number(value.double) }
    }

    @inlinable
    public mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// `value` as a JSON string: quotes, and escapes for `"`, `\` and control characters.
    @inlinable
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw(#"\""#)
            case UInt8(ascii: "\\"): raw(#"\\"#)
            case UInt8(ascii: "\n"): raw(#"\n"#)
            case UInt8(ascii: "\r"): raw(#"\r"#)
            case UInt8(ascii: "\t"): raw(#"\t"#)
            case 0..<0x20: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Any JSON value, object keys sorted (the canonical form).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let value): bool(value)
        case .number(let value): number(value)
        case .string(let value): string(value)
        case .array(let values):
            raw("[")
            for (index, element) in values.enumerated() {
                if index > 0 { raw(",") }
                self.value(element)
            }
            raw("]")
        case .object(let members):
            raw("{")
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { raw(",") }
                string(member.key)
                raw(":")
                self.value(member.value)
            }
            raw("}")
        }
    }

    /// Bytes ``string(_:)`` writes for `value`, counted without writing.
    static func stringByteCount(_ value: String) -> Int {
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

    /// Bytes ``number(_:)`` writes for `value`.
    static func numberByteCount(_ value: JSONNumber) -> Int {
        value.exactText?.utf8.count ?? numberByteCount(value.double)
    }

    /// Bytes ``number(_:)`` writes for `value`, counted without writing when it is an integer.
    static func numberByteCount(_ value: Double) -> Int {
        guard let integer = exactInteger(value) else { return value == 0 ? 2 : value.description.utf8.count }
        var magnitude = integer.magnitude, digits = 1
        while magnitude >= 10 { magnitude /= 10; digits += 1 }
        return digits + (integer < 0 ? 1 : 0)
    }

    @usableFromInline
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
