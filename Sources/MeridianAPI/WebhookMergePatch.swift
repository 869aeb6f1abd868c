package import OpenAPIRuntime
package import WireJSON

/// The contract's `WebhookPatch` (`typeOverrides`): a JSON merge patch in which
/// `subscriptionIds: null` (every subscription) differs from an absent member (no change). Read as
/// the generated type would read it (the same errors, so the same 400s), plus the members set to null.
package struct WebhookMergePatch: Codable, Hashable, Sendable {
    /// A webhook's state as a patch sets it.
    package enum StatePayload: String, Codable, Hashable, Sendable, CaseIterable {
        case active
        case disabled
    }

    package var url: Components.Schemas.WebhookURL?
    package var secret: Components.Schemas.WebhookSecret?
    /// Only these subscriptions' events; see ``nulls`` for `null` (every subscription's).
    package var subscriptionIds: [String]?
    package var state: StatePayload?
    /// The members the patch set to `null`.
    package var nulls: Set<String>

    /// A patch of these members.
    package init(url: String? = nil, secret: String? = nil, subscriptionIds: [String]? = nil, state: StatePayload? = nil, nulls: Set<String> = []) {
        (self.url, self.secret, self.subscriptionIds, self.state, self.nulls) = (url, secret, subscriptionIds, state, nulls)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MergePatchKey.self)
        url = try container.decodeIfPresent(String.self, forKey: "url")
        secret = try container.decodeIfPresent(String.self, forKey: "secret")
        subscriptionIds = try container.decodeIfPresent([String].self, forKey: "subscriptionIds")
        state = try container.decodeIfPresent(StatePayload.self, forKey: "state")
        nulls = try decoder.nullMembers()
    }

    /// Writes the members (nulls included) as the contract spells them.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MergePatchKey.self)
        try container.encodeIfPresent(url, forKey: "url")
        try container.encodeIfPresent(secret, forKey: "secret")
        try container.encodeIfPresent(subscriptionIds, forKey: "subscriptionIds")
        try container.encodeIfPresent(state, forKey: "state")
        for name in nulls.sorted() { try container.encodeNil(forKey: MergePatchKey(stringValue: name)) }
    }
}
