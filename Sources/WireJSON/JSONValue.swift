/// Any JSON value: the free `properties` of an annotation and the fields of a merge patch.
/// Numbers keep their exact value (``JSONNumber``).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Levels of arrays and objects: 0 for a scalar, 1 for `[]` or `{"a":1}`.
    public var nestingDepth: Int {
        switch self {
        case .array(let values): return 1 + (values.lazy.map(\.nestingDepth).max() ?? 0)
        case .object(let members): return 1 + (members.values.lazy.map(\.nestingDepth).max() ?? 0)
        default: return 0
        }
    }

    /// A number a Double prints as.
    public static func number(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    /// The object's members, or nil for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}

extension JSONValue: Codable {
    /// Decodes as Foundation's decoder reads the value; inside a request whose body ``RequestJSON``
    /// holds, the value at the decoder's path is taken from it instead, numbers exact.
    public init(from decoder: any Decoder) throws {
        try self.init(decoding: decoder)
        if let exact = RequestJSON.current?.value(at: decoder.codingPath), exact.approximates(self) { self = exact }
    }

    private init(decoding decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Where marks are collected (``ExactNumbers/encoding(_:)``) a number no Double prints as keeps its text.
            if let text = value.exactText, ExactNumbers.collecting { try container.encode(ExactNumbers.mark(text)) } else { try container.encode(value.double) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Whether `other` is this value as a Double-reading decoder sees it: the same shape, and each
    /// number either the same Double or one the decoder could not have read exactly (or its stand-in, ``RequestJSON``).
    public func approximates(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.number(let x), .number(let y)): return x.double == y.double || x.exactText != nil
        case (.number(let x), .object(let y)):  // a stand-in
            return x.exactText != nil && y.count == 1 && y.keys.first!.utf8.starts(with: ExactNumbers.prefix) && y.values.first == .null
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.approximates($1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { value.approximates($0) } ?? false }
        default: return false
        }
    }
}
