/// The name of a tenant: what partitions every annotation, device, subscription, event and key.
///
/// 1–64 characters of `A–Z a–z 0–9 . _ -`, starting with a letter or digit (so it fits a log
/// line, a metric label and a command line unquoted). Everything before tenants existed, and open
/// mode, lives in ``default``.
public struct TenantID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The tenant of open mode and of data written before tenants existed.
    public static let `default` = TenantID(unchecked: "default")
    /// Most characters of a name.
    public static let maxLength = 64
    /// The rule a name follows, as error messages state it.
    public static let rule = "1–64 of A–Z a–z 0–9 . _ -, starting with a letter or digit"

    /// The name.
    public let description: String

    /// A tenant name; nil when `name` breaks the rule above.
    public init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard (1...Self.maxLength).contains(bytes.count), let first = bytes.first, Self.isAlphanumeric(first),
              bytes.allSatisfy({ Self.isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return nil }
        description = name
    }

    private init(unchecked name: String) { description = name }

    public static func < (a: TenantID, b: TenantID) -> Bool { a.description < b.description }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
