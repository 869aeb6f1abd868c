@_spi(Generated) package import OpenAPIRuntime
package import WireJSON

/// The contract's `SubscriptionInput` (`typeOverrides`): a significant-change, a region or a visits
/// subscription, told apart by `type`, read as the generated `oneOf` reads it (the same errors, so
/// the same 400s), plus the members set to `null`: `maxLocationAge: null` is "no limit", which
/// differs from an absent member (the default limit).
package struct SubscriptionCreation: Codable, Hashable, Sendable {
    /// The subscription's kind and its fields.
    package enum Kind: Hashable, Sendable {
        case significantChange(Components.Schemas.SignificantChangeSubscriptionInput)
        case region(Components.Schemas.RegionSubscriptionInput)
        case status(Components.Schemas.StatusSubscriptionInput)
        case visits(Components.Schemas.VisitsSubscriptionInput)
    }

    package var kind: Kind
    /// The top-level members the request set to `null`.
    package var nulls: Set<String>

    /// A request of this kind.
    package init(_ kind: Kind, nulls: Set<String> = []) { (self.kind, self.nulls) = (kind, nulls) }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MergePatchKey.self)
        let discriminator = try container.decode(String.self, forKey: "type")
        switch discriminator {
        case "significantChange", "#/components/schemas/SignificantChangeSubscriptionInput":
            kind = .significantChange(try .init(from: decoder))
        case "region", "#/components/schemas/RegionSubscriptionInput":
            kind = .region(try .init(from: decoder))
        case "status", "#/components/schemas/StatusSubscriptionInput":
            kind = .status(try .init(from: decoder))
        case "visits", "#/components/schemas/VisitsSubscriptionInput":
            kind = .visits(try .init(from: decoder))
        default:
            throw DecodingError.unknownOneOfDiscriminator(discriminatorKey: MergePatchKey("type"), discriminatorValue: discriminator, codingPath: decoder.codingPath)
        }
        nulls = try decoder.nullMembers()
    }

    /// Writes the subscription's fields (the nulls are not written back).
    package func encode(to encoder: any Encoder) throws {
        switch kind {
        case .significantChange(let value): try value.encode(to: encoder)
        case .region(let value): try value.encode(to: encoder)
        case .status(let value): try value.encode(to: encoder)
        case .visits(let value): try value.encode(to: encoder)
        }
    }
}
