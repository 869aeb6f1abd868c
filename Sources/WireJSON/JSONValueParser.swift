/// Strict JSON (RFC 8259) in one pass over the bytes, and the byte cursor every fast reader walks
/// with: whole values (``value()``), or token by token (``consume(_:)``, ``members(_:)``,
/// ``plainString()``, ``number()``) where a reader knows the shape and skips building a tree.
/// What bulk imports, stored properties and the conversion fast path read instead of Foundation's
/// decoder and the runtime's free-form containers (several times slower).
///
/// Returns nil for anything that is not exactly one valid JSON text; callers then fall back to the
/// generated decoding, which reports the error with its position.
public struct JSONValueParser {
    public let bytes: UnsafeRawBufferPointer
    /// The position of the next byte to read.
    public var index = 0
    @usableFromInline var depth = 0
    private static let maxDepth = 512

    /// The value of the whole buffer, or nil when it is not valid JSON.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var parser = JSONValueParser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == bytes.count ? value : nil
    }

    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable
    public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    public mutating func value() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default:
            guard let (number, length) = JSONNumber.parse(bytes, from: index) else { return nil }
            index += length
            return .number(number)
        }
    }

    /// After whitespace, the next byte if it is `byte` (consumed); false otherwise.
    @inlinable
    public mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// After whitespace, the next byte without consuming it.
    @inlinable
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// A string at the current position (after whitespace), or nil for anything else.
    @inlinable
    public mutating func stringValue() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        return string()
    }

    /// A number at the current position.
    @inlinable
    public mutating func number() -> Double? {
        skipWhitespace()
        guard index < bytes.count, let (number, length) = DecimalParser.parse(bytes, from: index) else { return nil }
        index += length
        return number
    }

    /// Whether only whitespace remains.
    @inlinable
    public mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Walks an object's members, calling `member` with each key while the parser stands on its
    /// value (which `member` must read); false when the object is malformed or `member` says so.
    @inlinable
    public mutating func members(_ member: (String, inout JSONValueParser) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = stringValue(), consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(key, &self) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// After whitespace, a string without escapes as the bytes between its quotes, read without
    /// making a `String` (the keys fast paths look for are plain ASCII); nil for anything else.
    @inlinable
    public mutating func plainString() -> Slice<UnsafeRawBufferPointer>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return bytes[start..<end]
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            end += 1
        }
        return nil
    }

    /// Whether `slice` holds exactly the bytes of `key`.
    @inline(__always)
    @inlinable
    public static func equal(_ slice: Slice<UnsafeRawBufferPointer>, _ key: [UInt8]) -> Bool {
        guard slice.count == key.count else { return false }
        var offset = slice.startIndex
        for byte in key {
            guard slice.base[offset] == byte else { return false }
            offset += 1
        }
        return true
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
        let length = text.utf8CodeUnitCount
        guard index + length <= bytes.count else { return nil }
        for offset in 0..<length where bytes[index + offset] != text.utf8Start[offset] { return nil }
        index += length
        return value
    }

    private mutating func object() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { return nil }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            // A repeated key is not valid here (``JSONBodyCheck`` says where it is).
            guard let member = value(), members.updateValue(member, forKey: key) == nil else { return nil }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            return nil
        }
    }

    private mutating func array() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { return nil }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            return nil
        }
    }

    /// A string at `index` (on its opening quote); UTF-8 is validated, escapes decoded.
    @usableFromInline
    mutating func string() -> String? {
        index += 1  // "
        let start = index
        // Plain strings (no escapes) are one slice of the buffer.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII is valid UTF-8 as it stands; only other text needs the (slower) validation.
                return slice.allSatisfy { $0 < 0x80 } ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    utf8.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                utf8.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The scalar of `XXXX` after `\u` (a surrogate pair takes two escapes).
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)  // nil for a lone low surrogate
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
