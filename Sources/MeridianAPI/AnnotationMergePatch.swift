@_spi(Generated) package import OpenAPIRuntime
package import WireJSON

/// The contract's `AnnotationPatch` (`typeOverrides`): a JSON merge patch (RFC 7386), whose `null`
/// removes a field. The generated type would read `null` and absent alike; this one checks each
/// member's type as the generated decoding does (the same errors, so the same 400s) and keeps the
/// members as sent.
package struct AnnotationMergePatch: Codable, Hashable, Sendable {
    /// The patch's members as sent, `null` (remove) included.
    package var members: [String: JSONValue]

    /// A patch of these members.
    package init(members: [String: JSONValue]) { self.members = members }

    package init(from decoder: any Decoder) throws {
        _ = try Checked(from: decoder)
        members = try [String: JSONValue](from: decoder)
    }

    /// Writes the members as they were read.
    package func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }

    /// The member types the contract allows, read as the generated type reads them.
    private struct Checked: Decodable {
        /// `coordinate`: merged member by member.
        struct Coordinate: Decodable {
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: MergePatchKey.self)
                _ = try container.decodeIfPresent(Double.self, forKey: "latitude")
                _ = try container.decodeIfPresent(Double.self, forKey: "longitude")
                try decoder.ensureNoAdditionalProperties(knownKeys: ["latitude", "longitude"])
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: MergePatchKey.self)
            _ = try container.decodeIfPresent(String.self, forKey: "externalId")
            _ = try container.decodeIfPresent(Coordinate.self, forKey: "coordinate")
            _ = try container.decodeIfPresent(String.self, forKey: "title")
            _ = try container.decodeIfPresent(String.self, forKey: "subtitle")
            _ = try container.decodeIfPresent(String.self, forKey: "kind")
            _ = try container.decodeIfPresent(String.self, forKey: "clusteringIdentifier")
            _ = try container.decodeIfPresent(Int.self, forKey: "displayPriority")
            _ = try container.decodeIfPresent(OpenAPIObjectContainer.self, forKey: "properties")
            try decoder.ensureNoAdditionalProperties(knownKeys: ["externalId", "coordinate", "title", "subtitle", "kind", "clusteringIdentifier", "displayPriority", "properties"])
        }
    }
}

/// A member name of a hand-read body (the keys of the override types' checks).
package struct MergePatchKey: CodingKey, ExpressibleByStringLiteral, Sendable {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
    package init(stringLiteral value: String) { stringValue = value }
    /// The key named `name`.
    package init(_ name: String) { stringValue = name }
}

extension Decoder {
    /// The names of the top-level members this object sets to `null` (none when it is not an object).
    func nullMembers() throws -> Set<String> {
        let members = try [String: JSONValue](from: self)
        return Set(members.filter { $0.value == .null }.keys)
    }
}
