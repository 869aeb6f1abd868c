/// The check every outbound webhook passes before a connection is opened: resolve the host once,
/// refuse it if ANY of its addresses is refused by the policy, and name the one address to connect to.
///
/// The caller connects to exactly the address returned (no second lookup), so a name cannot
/// resolve to a public address here and to an internal one at connection time (DNS rebinding).
public struct OutboundGuard: Sendable {
    /// Which addresses may be reached.
    public let policy: AddressPolicy
    /// How hosts become addresses.
    public let resolver: HostResolver

    /// A guard applying `policy` to the addresses `resolver` gives.
    public init(policy: AddressPolicy, resolver: HostResolver) {
        self.policy = policy
        self.resolver = resolver
    }

    /// Resolves `url.host` and checks every address it has; returns the first (the one to connect
    /// to). Throws `.unresolvable` when the host has no address and `.refused`, naming the first
    /// refused address, when the policy refuses any of them.
    public func check(_ url: WebhookURL) async throws(WebhookURLError) -> IPAddress {
        let addresses = try await resolver.resolve(url.host)
        for address in addresses {
            if let reason = policy.refusal(for: address) {
                throw .refused(host: url.host, address: address, reason: reason)
            }
        }
        guard let first = addresses.first else { throw .unresolvable(host: url.host) }
        return first
    }
}
