import Foundation

/// An outbound webhook URL that is plain http or https to a host and port, with no credentials.
///
/// Only the form is checked here; where the host leads is `OutboundGuard`'s job. The host is kept as
/// written (percent-decoded, lower-cased; an internationalised name in punycode), an IPv6 literal without its brackets; it may still be a
/// name or a numeric form such as `127.1` that only resolution turns into an address.
public struct WebhookURL: Hashable, Sendable {
    /// The longest URL accepted, in bytes of UTF-8 (characters, for the ASCII text of a URL).
    public static let maximumLength = 2048

    /// The URL text as given.
    public let url: String
    /// `http` or `https`, lower-cased.
    public let scheme: String
    /// The host, lower-cased; an IPv6 literal without brackets (`::1`).
    public let host: String
    /// The explicit port, or 80 for http and 443 for https.
    public let port: Int

    /// Parses and checks `text`: at most 2048 characters, scheme http or https, a host (a name or
    /// an IPv4/IPv6 literal), no user-info, a port in 1…65535.
    public init(_ text: String) throws(WebhookURLError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard let components = URLComponents(string: text), let rawScheme = components.scheme, !rawScheme.isEmpty
        else { throw .malformed }
        let scheme = rawScheme.lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else { throw .credentials }
        guard let decoded = components.host, !decoded.isEmpty else { throw .missingHost }
        // An internationalised name is checked, resolved and sent in its ASCII (punycode) form.
        let host = try Self.host(decoded.unicodeScalars.allSatisfy(\.isASCII) ? decoded : components.encodedHost ?? "")
        let port: Int
        if let explicit = components.port {
            guard (1...65535).contains(explicit) else { throw .invalidPort }
            port = explicit
        } else if let digits = components.rangeOfPort, !digits.isEmpty {
            throw .invalidPort  // written but too large for an Int
        } else {
            port = scheme == "https" ? 443 : 80
        }
        url = text
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The host as stored: a bracketed IPv6 literal unbracketed (`[::1]` on Linux, `::1` on
    /// Darwin, both become `::1`), anything else lower-cased and limited to the characters of a
    /// host name (letters, digits, `-`, `.`, `_`), so no decoded `%00`, `/` or space slips through.
    private static func host(_ raw: String) throws(WebhookURLError) -> String {
        let bare = raw.hasPrefix("[") && raw.hasSuffix("]") && raw.count >= 2 ? String(raw.dropFirst().dropLast()) : raw
        if bare.contains(":") {
            guard let address = IPAddress(bare), !address.isIPv4 else { throw .malformed }
            return bare.lowercased()
        }
        guard bare == raw, bare.unicodeScalars.allSatisfy(Self.isHostCharacter) else { throw .malformed }
        return bare.lowercased()
    }

    /// Whether `scalar` may appear in a host name: an ASCII letter or digit, `-`, `.`, `_`
    /// (an internationalised name arrives here in its punycode form).
    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "-" || scalar == "." || scalar == "_"
    }
}
