@_spi(Generated) package import OpenAPIRuntime
package import WireJSON

/// The contract's `CQL2Filter` (`typeOverrides`): CQL2-JSON (an object or a boolean) or CQL2-Text
/// (a string), kept as the JSON it was sent as, since the server parses it into a filter and points
/// into it (`/filter/args/0`). The generated `oneOf` would keep an object as an untyped container.
package struct CQL2FilterInput: Codable, Hashable, Sendable {
    /// The filter as sent: `.object`, `.bool` or `.string`.
    package var json: JSONValue

    /// A filter from CQL2-JSON or (as a string) CQL2-Text.
    package init(_ json: JSONValue) { self.json = json }

    /// Reads an object, a boolean or a string; anything else fails as the generated `oneOf` does.
    package init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        switch value {
        case .object, .bool, .string:
            json = value
        case .null, .number, .array:
            let mismatch = DecodingError.typeMismatch(JSONValue.self, .init(codingPath: decoder.codingPath, debugDescription: "not an object, a boolean or a string"))
            throw DecodingError.failedToDecodeOneOfSchema(type: Self.self, codingPath: decoder.codingPath, errors: [mismatch])
        }
    }

    /// Writes the JSON as it was read.
    package func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
