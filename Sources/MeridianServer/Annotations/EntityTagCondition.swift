import Annotations

/// Entity tags of `If-Match` / `If-None-Match` (RFC 9110 §8.8.3, §13.1): `*`, or a list of
/// quoted tags, optionally weak (`W/"3"`). Our tags are `"<version>"`, compared as text, so
/// `"01"` or an unquoted `1` match nothing.
struct EntityTagCondition {
    private let tags: [(weak: Bool, opaque: String)]
    private let any: Bool

    /// Reads `*` or a list of entity tags (RFC 9110 §8.8.3: `W/` for weak, then a quoted run of
    /// visible ASCII other than `"`), separated by commas with optional spaces or tabs; nil for
    /// anything else. Exactly what the contract's `If-Match` pattern matches (around the spaces and
    /// tabs HTTP drops).
    init?(_ header: String) {
        let bytes = Array(header.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        skipSpace()
        if bytes[index...].starts(with: [UInt8(ascii: "*")]) {
            index += 1
            skipSpace()
            guard index == bytes.count else { return nil }
            (any, tags) = (true, [])
            return
        }
        var tags: [(weak: Bool, opaque: String)] = []
        while true {
            let weak = bytes[index...].starts(with: Array("W/".utf8))
            if weak { index += 2 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            while index < bytes.count, Self.isTagByte(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            tags.append((weak, String(decoding: bytes[start..<index], as: UTF8.self)))
            index += 1
            skipSpace()
            if index == bytes.count { break }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            skipSpace()
        }
        (any, self.tags) = (false, tags)
    }

    /// Visible ASCII but `"`, `%` and `+` (the generated header decoding reads those two as URI
    /// escapes; no Meridian tag has them).
    private static func isTagByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || ((0x23...0x7E).contains(byte) && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "+"))
    }

    /// What an `If-Match` demands: `*` an existing annotation; a list, one of its strong tags'
    /// versions (weak tags never match, RFC 9110 §13.1.1).
    var versionCondition: VersionCondition {
        any ? .exists : .oneOf(Set(tags.filter { !$0.weak }.compactMap { tag in Int(tag.opaque).flatMap { String($0) == tag.opaque ? $0 : nil } }))
    }

    /// Weak comparison for `If-None-Match`: whether the client's copy is `version`.
    func matches(version: Int) -> Bool {
        matches(opaque: String(version))
    }

    /// Weak comparison for `If-None-Match`: whether the client holds the tag `"opaque"`.
    func matches(opaque: some StringProtocol) -> Bool {
        any || tags.contains { $0.opaque == opaque }
    }
}
