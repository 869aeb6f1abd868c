/// Which addresses outbound webhooks may reach: every public unicast address, none of the special
/// ranges (loopback, private, link-local and cloud metadata, multicast, documentation, …) unless the
/// server operator allows a range explicitly (`--webhook-allow-cidr`).
///
/// An IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64,
/// 6to4) is judged by that IPv4 address, so `::ffff:127.0.0.1` and `::ffff:0:7f00:1` are refused as
/// loopback and allowed when `127.0.0.0/8` is.
public struct AddressPolicy: Sendable {
    /// The ranges the operator allows whatever their class (checked before any refusal).
    public let allowed: [CIDR]

    /// A policy refusing the special ranges except those inside `allowed`.
    public init(allowed: [CIDR] = []) {
        self.allowed = allowed
    }

    /// Nil when `address` may be contacted; otherwise a short human reason naming its class
    /// ("loopback", "private (RFC 1918)", "IPv4-mapped loopback", …), used in API errors.
    public func refusal(for address: IPAddress) -> String? {
        if isAllowed(address) { return nil }
        if let (form, embedded) = address.embedding {
            if isAllowed(embedded) { return nil }
            return Self.specialRange(of: embedded).map { "\(form) \($0)" }
        }
        return Self.specialRange(of: address)
    }

    /// Whether an allowed range holds `address`.
    private func isAllowed(_ address: IPAddress) -> Bool {
        allowed.contains { $0.contains(address) }
    }

    /// The reason of the first special range holding `address`, nil for an ordinary public address.
    static func specialRange(of address: IPAddress) -> String? {
        specialRanges.first { $0.range.contains(address) }?.reason
    }

    /// The ranges no webhook may reach by default, with the reason given; the first match wins, so
    /// a narrower range comes before the wider one it lies in (0.0.0.0/32 before 0.0.0.0/8,
    /// 255.255.255.255 before 240.0.0.0/4).
    static let specialRanges: [(range: CIDR, reason: String)] = {
        let table: [(String, String)] = [
            // IPv4
            ("0.0.0.0/32", "unspecified"),
            ("0.0.0.0/8", "this network (0.0.0.0/8)"),
            ("10.0.0.0/8", "private (RFC 1918)"),
            ("100.64.0.0/10", "shared address space (RFC 6598)"),
            ("127.0.0.0/8", "loopback"),
            ("169.254.0.0/16", "link-local (cloud metadata)"),
            ("172.16.0.0/12", "private (RFC 1918)"),
            ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
            ("192.0.2.0/24", "documentation"),
            ("192.168.0.0/16", "private (RFC 1918)"),
            ("198.18.0.0/15", "benchmarking (RFC 2544)"),
            ("198.51.100.0/24", "documentation"),
            ("203.0.113.0/24", "documentation"),
            ("224.0.0.0/4", "multicast"),
            ("255.255.255.255/32", "broadcast"),
            ("240.0.0.0/4", "reserved"),
            // IPv6
            ("::/128", "unspecified"),
            ("::1/128", "loopback"),
            ("fc00::/7", "unique local (fc00::/7)"),
            ("fe80::/10", "link-local"),
            ("fec0::/10", "site-local (deprecated)"),
            ("ff00::/8", "multicast"),
            ("100::/64", "discard-only (RFC 6666)"),
            ("2001:db8::/32", "documentation"),
            ("2001::/32", "Teredo tunnelling"),
            ("64:ff9b:1::/48", "local-use NAT64 (RFC 8215)"),
        ]
        let ranges = table.compactMap { text, reason in CIDR(text).map { (range: $0, reason: reason) } }
        assert(ranges.count == table.count, "a special range of the table does not parse")
        return ranges
    }()
}
