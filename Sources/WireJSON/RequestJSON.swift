import Synchronization

/// The JSON text being decoded (the body of the request being handled, a stored column), read
/// exactly: where a Double-reading decoder (Foundation's, which the generated handlers use) takes
/// free JSON, ``JSONValue``'s decoding takes the value at the same path from here instead, so
/// numbers keep their exact value.
///
/// That decoder refuses numbers beyond a Double's range (`1e400`, `1e-400`: "not valid JSON"), so
/// it reads ``decodable``: the text with each of those replaced by an object named by its
/// ``ExactNumbers`` mark. A typed field given one is refused as the wrong type, naming the field;
/// a free value is taken from here, exact.
public final class RequestJSON: Sendable {
    /// The body for the Double-reading decoder: the body itself unless a number had to stand in.
    public let decodable: [UInt8]
    private let bytes: [UInt8]
    /// The parsed body, once asked for (nil inside: not valid JSON).
    private let parsed = Mutex<JSONValue??>(nil)

    /// The body of the request the current task handles, when a middleware has set it.
    @TaskLocal public static var current: RequestJSON?

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.decodable = Self.standIns(bytes) ?? bytes
    }

    /// `decode` (a Double-reading decoder) on `bytes` read as a body is: with stand-ins, and
    /// ``JSONValue``s exact. For stored JSON, written by ``ExactNumbers/encoding(_:)``.
    public static func decoding<Value>(_ bytes: [UInt8], _ decode: ([UInt8]) throws -> Value) rethrows -> Value {
        let json = RequestJSON(bytes)
        return try $current.withValue(json) { try decode(json.decodable) }
    }

    /// The exact value at `path` (the decoder's coding path: member names, array indexes); nil when
    /// the body is not valid JSON or has nothing there.
    public func value(at path: [any CodingKey]) -> JSONValue? {
        let root = parsed.withLock { parsed in
            if let parsed { return parsed }
            let value = bytes.withUnsafeBytes { JSONValueParser.parse($0) }
            parsed = .some(value)
            return value
        }
        var value = root
        for key in path {
            switch value {
            case .object(let members)?: value = members[key.stringValue]
            case .array(let elements)?: value = key.intValue.flatMap { elements.indices.contains($0) ? elements[$0] : nil }
            default: return nil
            }
        }
        return value
    }

    /// The body with stand-ins for the numbers a Double-reading decoder refuses; nil when there are none.
    static func standIns(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { body -> [UInt8]? in
            var copy: [UInt8]?
            var copied = 0  // bytes of `body` accounted for in `copy`
            var index = 0
            var inString = false
            while index < body.count {
                let byte = body[index]
                if inString {
                    if byte == UInt8(ascii: "\\") { index += 2; continue }
                    if byte == UInt8(ascii: "\"") { inString = false }
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                    index += 1
                } else if byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 {
                    guard let scan = DecimalParser.scan(body, from: index) else { return nil }  // not JSON: the decoder explains
                    if let standIn = standIn(scan, UnsafeRawBufferPointer(rebasing: body[index..<(index + scan.length)])) {
                        var out = copy ?? []
                        out += body[copied..<index]
                        out += standIn.utf8
                        copy = out
                        copied = index + scan.length
                    }
                    index += scan.length
                } else {
                    index += 1
                }
            }
            guard var copy else { return nil }
            copy += body[copied...]
            return copy
        }
    }

    /// The stand-in for a number a Double-reading decoder refuses (one rounding to infinity, or to
    /// zero while not zero): an object whose one member is named by its ``ExactNumbers`` mark; nil for any other number.
    private static func standIn(_ scan: DecimalParser.Scan, _ text: UnsafeRawBufferPointer) -> String? {
        if scan.double.isFinite {
            guard scan.double == 0 else { return nil }
            let mantissa = text.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
            guard mantissa.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) else { return nil }
        }
        // An object, not a string: a typed string, number or enum field given one is refused as the
        // wrong type (naming the field, echoing nothing), never stored with the mark in it.
        return "{\"" + String(decoding: ExactNumbers.prefix, as: UTF8.self) + String(decoding: text, as: UTF8.self) + "\":null}"
    }
}
