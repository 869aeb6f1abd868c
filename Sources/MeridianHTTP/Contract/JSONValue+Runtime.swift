public import OpenAPIRuntime
public import WireJSON

// Free JSON (properties, merge patches, the contract itself) arrives as the runtime's value
// containers and becomes `JSONValue`; the way back cannot fail. One number rule both ways:
// `JSONWriter.exactInteger` (whole and below 2^53 → Int).

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

    /// The members of an optional free-form object; an absent object is empty.
    public static func members(of container: OpenAPIObjectContainer?) -> [String: JSONValue] {
        container?.value.mapValues(JSONValue.init(runtimeValue:)) ?? [:]
    }

    /// The value as the runtime's containers hold it (whole numbers as Int, so they print without a fraction).
    public var runtimeValue: (any Sendable)? {
        switch self {
        case .null: return nil
        case .bool(let value): return value
        case .number(let value):
            if let integer = JSONWriter.exactInteger(value) { return Int(integer) }
            return value
        case .string(let value): return value
        case .array(let values): return values.map(\.runtimeValue)
        case .object(let members): return members.mapValues(\.runtimeValue)
        }
    }
}

extension OpenAPIObjectContainer {
    /// A container holding `members`; JSON values are always valid container values.
    public init(_ members: [String: JSONValue]) {
        self = (try? OpenAPIObjectContainer(unvalidatedValue: members.mapValues(\.runtimeValue))) ?? OpenAPIObjectContainer()
    }
}
