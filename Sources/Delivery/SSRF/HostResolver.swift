/// Turns a webhook host into the addresses it stands for: the system resolver in production
/// (`HostResolver.system`, in DeliveryHTTP), an injected table in tests.
///
/// Whatever the lookup returns is deduplicated with its order kept; a lookup that fails, throws or
/// finds nothing is `WebhookURLError.unresolvable`.
public struct HostResolver: Sendable {
    /// A lookup: the host as in `WebhookURL.host` (an IPv6 literal without brackets) to its addresses.
    public typealias Lookup = @Sendable (String) async throws -> [IPAddress]

    /// The lookup this resolver wraps.
    private let lookup: Lookup

    /// A resolver answering with `lookup`.
    public init(_ lookup: @escaping Lookup) {
        self.lookup = lookup
    }

    /// The addresses of `host`, without duplicates, in the order the lookup gave them; never empty.
    public func resolve(_ host: String) async throws(WebhookURLError) -> [IPAddress] {
        let found: [IPAddress]
        do {
            found = try await lookup(host)
        } catch let error as WebhookURLError {
            throw error
        } catch {
            throw .unresolvable(host: host)
        }
        var seen: Set<IPAddress> = []
        let addresses = found.filter { seen.insert($0).inserted }
        guard !addresses.isEmpty else { throw .unresolvable(host: host) }
        return addresses
    }
}
