import Glibc

/// An IPv4 or IPv6 address as its bytes in network order: 4 for IPv4, 16 for IPv6.
///
/// Literals are parsed with `inet_pton`, so only the standard forms are read: the IPv4 dotted quad
/// (`127.0.0.1`, not `127.1` or `0x7f.0.0.1`) and every IPv6 text form, including `::ffff:1.2.3.4`
/// and a bracketed `[::1]` as written in a URL. Zone ids (`fe80::1%eth0`) are not addresses here.
/// The description is `inet_ntop`'s: IPv6 lower-case and compressed.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The address made of `bytes` (network order); nil unless there are exactly 4 or 16 of them.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses an IPv4 dotted quad or an IPv6 literal, bare or in brackets (`[::1]`; brackets hold
    /// IPv6 only). Nil for anything else, including host names and text with a NUL byte.
    public init?(_ text: String) {
        guard text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
        if text.hasPrefix("[") || text.hasSuffix("]") {
            guard text.count >= 2, text.hasPrefix("["), text.hasSuffix("]"),
                  let v6 = Self.parse(String(text.dropFirst().dropLast()), family: AF_INET6, count: 16)
            else { return nil }
            bytes = v6
        } else if let v4 = Self.parse(text, family: AF_INET, count: 4) {
            bytes = v4
        } else if let v6 = Self.parse(text, family: AF_INET6, count: 16) {
            bytes = v6
        } else {
            return nil
        }
    }

    /// Whether this is an IPv4 address (4 bytes); otherwise it is IPv6 (16 bytes).
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address this IPv6 address carries, if it has one of the forms that route to one:
    /// IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96` (SIIT, RFC 2765 and 6052),
    /// IPv4-compatible `::/96` (but not `::` or `::1`), NAT64 `64:ff9b::/96` (the last 32 bits) or
    /// 6to4 `2002::/16` (bits 16–48). Nil for IPv4 addresses.
    public var embeddedIPv4: IPAddress? { embedding?.address }

    /// `inet_ntop`'s text: `10.0.0.1`, `::ffff:127.0.0.1`, `2001:db8::1`.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            text.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count - 1))
            }
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension IPAddress {
    /// The form of IPv6 address that carries an IPv4 one (named for refusal reasons, e.g.
    /// "IPv4-mapped") and that IPv4 address; nil for IPv4 and for IPv6 without one.
    var embedding: (form: String, address: IPAddress)? {
        guard bytes.count == 16 else { return nil }
        let last32 = Array(bytes[12..<16])
        let zeros = { (range: Range<Int>) in self.bytes[range].allSatisfy { $0 == 0 } }
        if zeros(0..<10), bytes[10] == 0xff, bytes[11] == 0xff {
            return IPAddress(bytes: last32).map { ("IPv4-mapped", $0) }
        }
        // `::ffff:0:a.b.c.d`: 64 zero bits, 0xffff, 16 zero bits, then the IPv4 address.
        if zeros(0..<8), bytes[8] == 0xff, bytes[9] == 0xff, zeros(10..<12) {
            return IPAddress(bytes: last32).map { ("IPv4-translated", $0) }
        }
        if zeros(0..<12) {
            // `::` and `::1` are IPv6's own unspecified and loopback addresses, not 0.0.0.0 / 0.0.0.1.
            guard !zeros(12..<15) || bytes[15] > 1 else { return nil }
            return IPAddress(bytes: last32).map { ("IPv4-compatible", $0) }
        }
        if bytes[0..<4] == [0x00, 0x64, 0xff, 0x9b], zeros(4..<12) {
            return IPAddress(bytes: last32).map { ("NAT64", $0) }
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 {
            return IPAddress(bytes: Array(bytes[2..<6])).map { ("6to4", $0) }
        }
        return nil
    }

    /// `inet_pton(family, text)` into `count` bytes; nil when it does not parse.
    private static func parse(_ text: String, family: Int32, count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        let status = buffer.withUnsafeMutableBytes { raw in
            text.withCString { inet_pton(family, $0, raw.baseAddress) }
        }
        return status == 1 ? buffer : nil
    }
}
