public import Foundation
import Crypto
public import Timeline

/// Making and checking the bearer tokens of API keys.
///
/// A token reads `mrd_<id>_<secret>`: `id` is 16 lowercase hex digits (the key's public id, used
/// to find it), `secret` 32 random bytes in unpadded base64url. The store keeps HMAC-SHA256 of the
/// secret under a per-key random salt; checking compares the codes in constant time.
public enum KeySecret {
    /// What every token starts with (so a leaked one is recognisable in logs and secret scanners).
    public static let prefix = "mrd_"
    static let idBytes = 8
    static let secretBytes = 32
    static let saltBytes = 16

    /// A new key and its token, which is shown once and never stored.
    public static func make(tenant: TenantID, role: Role, name: String?, at: Date) -> (token: String, key: APIKey) {
        let id = hex(random(idBytes))
        let secret = base64url(random(secretBytes))
        let salt = random(saltBytes)
        let key = APIKey(id: id, tenant: tenant, role: role, name: name, salt: salt, hash: code(secret, salt: salt), createdAt: at)
        return (prefix + id + "_" + secret, key)
    }

    /// The id and secret of a token; nil when it does not have the token's shape.
    public static func parse(_ token: Substring) -> (id: String, secret: Substring)? {
        guard token.hasPrefix(prefix) else { return nil }
        let rest = token.dropFirst(prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        let id = rest[..<separator]
        let secret = rest[rest.index(after: separator)...]
        guard id.utf8.count == idBytes * 2, id.utf8.allSatisfy(isHexDigit), !secret.isEmpty, secret.utf8.count <= 64 else { return nil }
        return (String(id), secret)
    }

    /// Whether `secret` is the key's, compared in constant time.
    public static func verifies(_ secret: Substring, _ key: APIKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(key.hash, authenticating: Array(secret.utf8), using: SymmetricKey(data: key.salt))
    }

    static func code(_ secret: String, salt: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(secret.utf8), using: SymmetricKey(data: salt)))
    }

    private static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    private static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
