/// A block of IPv4 or IPv6 addresses: a network address and how many leading bits every member
/// shares with it (`127.0.0.0/8`, `fc00::/7`).
///
/// Host bits written past the prefix are masked away (`10.1.2.3/8` is `10.0.0.0/8`); a bare address
/// is the block of that one address (/32 or /128). A block holds addresses of its own family only.
public struct CIDR: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block (all host bits zero).
    public let network: IPAddress
    /// The number of leading bits every member shares: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// The block of `prefixLength` leading bits of `address` (host bits are masked); nil when
    /// `prefixLength` is negative or beyond the family's width.
    public init?(network address: IPAddress, prefixLength: Int) {
        let width = address.bytes.count * 8
        guard (0...width).contains(prefixLength),
              let masked = IPAddress(bytes: Self.mask(address.bytes, prefixLength: prefixLength))
        else { return nil }
        network = masked
        self.prefixLength = prefixLength
    }

    /// Parses `address/prefix` (`127.0.0.0/8`, `::1/128`, `fc00::/7`) or a bare address (a block of
    /// one). Nil for a malformed address, a prefix that is not 1…3 decimal digits, or a prefix
    /// beyond the family's width (`10.0.0.0/33`, `::/129`).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(String(parts[0])) else { return nil }
        guard parts.count == 2 else {
            self.init(network: address, prefixLength: address.bytes.count * 8)
            return
        }
        let digits = parts[1]
        guard (1...3).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let length = Int(digits)
        else { return nil }
        self.init(network: address, prefixLength: length)
    }

    /// Whether `address` lies in this block; always false for an address of the other family.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        return Self.mask(address.bytes, prefixLength: prefixLength) == network.bytes
    }

    /// `network/prefixLength`, e.g. `10.0.0.0/8` or `fc00::/7`.
    public var description: String { "\(network)/\(prefixLength)" }

    /// Parses a comma-separated list (`127.0.0.0/8, ::1/128`); spaces around items are ignored and
    /// an empty or blank text is the empty list. Nil when any item (an empty one included) is malformed.
    public static func list(_ text: String) -> [CIDR]? {
        guard !text.allSatisfy(\.isWhitespace) else { return [] }
        var blocks: [CIDR] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let block = CIDR(item.trimmingWhitespace) else { return nil }
            blocks.append(block)
        }
        return blocks
    }

    /// `bytes` with every bit after the first `prefixLength` cleared.
    private static func mask(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 0 ? 0 : byte & ~UInt8(truncatingIfNeeded: (1 << (8 - kept)) - 1)
        }
    }
}

extension Substring {
    /// This text without leading and trailing whitespace.
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
