public import OpenAPIRuntime
public import WireJSON

// Free JSON (properties, merge patches, the contract itself) arrives as the runtime's value
// containers and becomes `JSONValue`; the way back cannot fail. One number rule both ways:
// `JSONWriter.exactInteger` (whole and below 2^53 → Int). A number no Double prints as travels
// through the containers as an ``ExactNumbers`` mark, replaced by its text once encoded.

extension JSONValue {
    /// A value of the runtime's free-form containers: nil, Bool, Int, Double, String, arrays, objects.
    public init(runtimeValue value: (any Sendable)?) {
        switch value {
        case nil: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .number(Double(value))
        case let value as Double: self = .number(value)
        case let value as String: self = .string(value)
        case let value as [(any Sendable)?]: self = .array(value.map(JSONValue.init(runtimeValue:)))
        case let value as [String: (any Sendable)?]: self = .object(value.mapValues(JSONValue.init(runtimeValue:)))
        default: self = .string(String(describing: value))  // not produced by decoding
        }
    }

    /// The members of an optional free-form object at `path` of the request body; an absent object
    /// is empty. Its numbers are exact when ``RequestJSON`` holds the body (the decoder read Doubles).
    public static func members(of container: OpenAPIObjectContainer?, at path: [String]) -> [String: JSONValue] {
        guard let container else { return [:] }
        let decoded = JSONValue.object(container.value.mapValues(JSONValue.init(runtimeValue:)))
        if let exact = RequestJSON.current?.value(at: path.map { MemberKey($0) }), exact.approximates(decoded), let members = exact.objectValue {
            return members
        }
        return decoded.objectValue ?? [:]
    }

    /// The value as the runtime's containers hold it (whole numbers as Int, so they print without
    /// a fraction; a number no Double prints as, as its ``ExactNumbers`` mark).
    public var runtimeValue: (any Sendable)? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .number(let value):
            if let text = value.exactText { return ExactNumbers.mark(text) }
            if let integer = JSONWriter.exactInteger(value.double) { return Int(integer) }
            return value.double
        case .string(let value): return value
        case .array(let values): return values.map(\.runtimeValue)
        case .object(let members): return members.mapValues(\.runtimeValue)
        }
    }
}

/// A member name, or an array index spelt in digits (`["locations", "3", "attributes"]`), as a coding key.
private struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { Int(stringValue) }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension OpenAPIObjectContainer {
    /// A container holding `members`; JSON values are always valid container values.
    public init(_ members: [String: JSONValue]) {
        self = (try? OpenAPIObjectContainer(unvalidatedValue: members.mapValues(\.runtimeValue))) ?? OpenAPIObjectContainer()
    }
}
