package import OpenAPIRuntime
package import WireJSON

/// The contract's `FeatureCollection` (`typeOverrides`): what export writes and import reads. Import
/// reads its features from the JSON as sent (a null field is absent, other members of `properties`
/// are free properties, as the fast route reads them), so a decoded collection keeps its members
/// besides the typed ones, read as the generated type would read them (the same errors, so the same 400s).
package struct FeatureCollectionBody: Codable, Hashable, Sendable {
    /// `type`: always `FeatureCollection`.
    package enum _TypePayload: String, Codable, Hashable, Sendable, CaseIterable {
        case featureCollection = "FeatureCollection"
    }

    package var _type: _TypePayload
    package var features: [Components.Schemas.Feature]
    /// The collection's members as sent (empty for one built to be written).
    package var members: [String: JSONValue]

    /// A collection to write.
    package init(_type: _TypePayload, features: [Components.Schemas.Feature]) {
        (self._type, self.features, self.members) = (_type, features, [:])
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MergePatchKey.self)
        _type = try container.decode(_TypePayload.self, forKey: "type")
        features = try container.decode([Components.Schemas.Feature].self, forKey: "features")
        members = try [String: JSONValue](from: decoder)
    }

    /// Writes `type` and `features` as the generated type would.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MergePatchKey.self)
        try container.encode(_type, forKey: "type")
        try container.encode(features, forKey: "features")
    }
}
