public import WireJSON
public import Yams

/// The contract's YAML as the JSON value it stands for, so every reader of the contract walks one
/// typed tree (``JSONValue``) instead of untyped dictionaries.
extension JSONValue {
    /// The value a YAML node stands for, by its resolved tag (a quoted scalar stays a string).
    /// - Throws: ``ContractError`` on aliases, which the contract does not use.
    public init(yaml node: Node) throws(ContractError) {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: self = .null
            case .bool: self = node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int: self = node.int.map { .number(Double($0)) } ?? .string(scalar.string)
            case .float: self = node.float.map(JSONValue.number) ?? .string(scalar.string)
            default: self = .string(scalar.string)
            }
        case .mapping(let mapping):
            var members: [String: JSONValue] = [:]
            for (key, value) in mapping { members[key.string ?? ""] = try JSONValue(yaml: value) }
            self = .object(members)
        case .sequence(let sequence):
            self = .array(try sequence.map { node throws(ContractError) in try JSONValue(yaml: node) })
        case .alias:
            throw ContractError(reason: "openapi.yaml uses a YAML alias, which the contract reader does not follow")
        }
    }

    /// The member `key` of an object; nil for a missing member or any other value.
    public subscript(_ key: String) -> JSONValue? { objectValue?[key] }

    /// The string, or nil for any other value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array, or nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}

extension JSONWriter {
    /// Writes a YAML node as JSON, each mapping's members in the order the YAML lists them and each
    /// scalar as ``JSONValue/init(yaml:)`` reads it.
    /// - Throws: ``ContractError`` on aliases, which the contract does not use.
    public mutating func yaml(_ node: Node) throws(ContractError) {
        switch node {
        case .scalar:
            value(try JSONValue(yaml: node))
        case .mapping(let mapping):
            raw("{")
            for (index, (key, member)) in mapping.enumerated() {
                if index > 0 { raw(",") }
                string(key.string ?? "")
                raw(":")
                try yaml(member)
            }
            raw("}")
        case .sequence(let sequence):
            raw("[")
            for (index, element) in sequence.enumerated() {
                if index > 0 { raw(",") }
                try yaml(element)
            }
            raw("]")
        case .alias:
            throw ContractError(reason: "openapi.yaml uses a YAML alias, which the contract reader does not follow")
        }
    }
}
