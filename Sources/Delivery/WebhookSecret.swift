import Crypto
public import Foundation

/// A Standard Webhooks signing secret: `whsec_` and the base64 of 24 to 64 random bytes. The
/// bytes (not the text) are the HMAC key.
public struct WebhookSecret: Hashable, Sendable, CustomStringConvertible {
    /// The secret as clients see it, `whsec_…`.
    public let text: String
    /// The HMAC-SHA256 key.
    public let key: Data

    /// The prefix every secret starts with.
    public static let prefix = "whsec_"
    /// How many key bytes a secret may have.
    public static let keyLength = 24...64
    /// How many random bytes a generated secret has.
    public static let generatedLength = 32

    /// Parses `text`; `nil` unless it is `whsec_` followed by standard base64 of 24 to 64 bytes.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let key = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
              Self.keyLength.contains(key.count) else { return nil }
        self.text = text
        self.key = key
    }

    /// A new secret of ``generatedLength`` bytes from the system's secure random generator.
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<generatedLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // The text is built from valid base64 of a valid length, so parsing it cannot fail.
        return WebhookSecret(unchecked: Self.prefix + Data(bytes).base64EncodedString(), key: Data(bytes))
    }

    private init(unchecked text: String, key: Data) {
        self.text = text
        self.key = key
    }

    /// Never the secret itself: descriptions end up in logs.
    public var description: String { "whsec_…" }
}

/// Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of `"<id>.<timestamp>.<body>"`.
public enum WebhookSignature {
    /// The signature of one message with one secret.
    public static func sign(id: String, timestamp: Int64, body: some DataProtocol, secret: WebhookSecret) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: secret.key))
        mac.update(data: Data("\(id).\(timestamp).".utf8))
        mac.update(data: body)
        return "v1," + Data(mac.finalize()).base64EncodedString()
    }

    /// The `webhook-signature` header: one signature per secret, space-separated.
    public static func header(id: String, timestamp: Int64, body: some DataProtocol, secrets: [WebhookSecret]) -> String {
        secrets.map { sign(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }
}
