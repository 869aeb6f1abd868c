extension JSONValue {
    /// Compact JSON with object keys sorted: one spelling per value, so equal values have equal
    /// text. Storage keeps `properties` in this form and idempotency keys compare requests by it.
    /// Written by ``JSONWriter`` (its one number rule).
    public var canonicalText: String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.text
    }

    /// The UTF-8 length of ``canonicalText``, counted without writing it.
    public var canonicalByteCount: Int {
        switch self {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .number(let value): return JSONWriter.numberByteCount(value)
        case .string(let value): return JSONWriter.stringByteCount(value)
        case .array(let values): return 2 + max(0, values.count - 1) + values.reduce(0) { $0 + $1.canonicalByteCount }
        case .object(let members):
            return 2 + max(0, members.count - 1) + members.reduce(0) { $0 + JSONWriter.stringByteCount($1.key) + 1 + $1.value.canonicalByteCount }
        }
    }

    /// Canonical text of an object's members.
    public static func canonicalText(of members: [String: JSONValue]) -> String {
        JSONValue.object(members).canonicalText
    }
}
