package import WireJSON

/// A JSON object as sent or as it is to be written, members and exact numbers kept
/// (`typeOverrides` of the OGC documents whose members a schema cannot list: features with flat
/// properties, collections of them, queryables, feature merge patches). The server reads and
/// checks the members itself; a body that is not a JSON object fails to decode (400).
package struct JSONObjectBody: Codable, Hashable, Sendable {
    /// The object's members.
    package var members: [String: JSONValue]

    /// An object of these members.
    package init(_ members: [String: JSONValue]) { self.members = members }

    package init(from decoder: any Decoder) throws {
        members = try [String: JSONValue](from: decoder)
    }

    /// Writes the members (numbers exact where ``ExactNumbers`` collects them).
    package func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }
}
