/// Why a webhook URL is refused: it does not parse, is not plain http(s) to a host and port, its
/// host does not resolve, or it resolves to an address outbound webhooks may not reach.
///
/// The description is one sentence for the API client that registered the URL.
public enum WebhookURLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not an absolute URL that Foundation's `URLComponents` can read, or its host is not a valid name or IPv6 literal.
    case malformed
    /// Longer than `WebhookURL.maximumLength` (2048 bytes of UTF-8).
    case tooLong
    /// A scheme other than http or https (lower-cased as written: `file`, `gopher`, `ftp`).
    case unsupportedScheme(String)
    /// No host (`http:///path`).
    case missingHost
    /// User-info in the authority (`user:password@host`).
    case credentials
    /// A port outside 1…65535.
    case invalidPort
    /// The host name resolved to no address.
    case unresolvable(host: String)
    /// The host is, or resolves to, `address`, which the address policy refuses for `reason`.
    case refused(host: String, address: IPAddress, reason: String)

    /// One sentence telling the API client what is wrong with the URL.
    public var description: String {
        switch self {
        case .malformed:
            "the webhook URL is not a valid absolute http(s) URL"
        case .tooLong:
            "the webhook URL is longer than \(WebhookURL.maximumLength) characters"
        case .unsupportedScheme(let scheme):
            "the webhook URL scheme \"\(scheme)\" is not supported: use http or https"
        case .missingHost:
            "the webhook URL has no host"
        case .credentials:
            "the webhook URL may not contain credentials (user:password@)"
        case .invalidPort:
            "the webhook URL port must be between 1 and 65535"
        case .unresolvable(let host):
            "the host \(host) of the webhook URL does not resolve to any address"
        case .refused(let host, let address, let reason):
            "\(IPAddress(host) == address ? "the address \(address) is" : "the host \(host) resolves to \(address), which is") "
                + "\(reason): webhooks may not reach it unless the server allows that range (--webhook-allow-cidr)"
        }
    }
}
