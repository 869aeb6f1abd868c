public import Foundation
public import Timeline

/// A stored API key: who it belongs to and what it may do, and a salted HMAC of its secret
/// (never the secret itself).
public struct APIKey: Hashable, Sendable {
    /// Public part of the key (16 lowercase hex digits), shown by `meridian keys list`.
    public var id: String
    public var tenant: TenantID
    public var role: Role
    /// A label for people (`"ios-app"`), if given.
    public var name: String?
    /// Random bytes, the HMAC key of ``hash``.
    public var salt: [UInt8]
    /// HMAC-SHA256 of the secret under ``salt``.
    public var hash: [UInt8]
    public var createdAt: Date
    /// When it stopped working; nil while it works.
    public var revokedAt: Date?

    public init(id: String, tenant: TenantID, role: Role, name: String?, salt: [UInt8], hash: [UInt8], createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.tenant = tenant
        self.role = role
        self.name = name
        self.salt = salt
        self.hash = hash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// What a request's check reads: one key by id, and whether open mode is over.
public protocol KeyDirectory: Sendable {
    /// The key with this id, revoked or not; nil when there is none.
    func key(id: String) throws -> APIKey?
    /// Whether any key was ever created (revoked ones count: open mode never comes back).
    func anyKeyExists() throws -> Bool
}

/// Where keys are kept. Reads answer what is committed now, so a revocation by another process
/// (`meridian keys revoke`) holds for the next request.
public protocol KeyStore: KeyDirectory {
    /// Stores a new key.
    func insert(_ key: APIKey) throws
    /// Every key (of one tenant, or of all), oldest first.
    func keys(tenant: TenantID?) throws -> [APIKey]
    /// Marks the key revoked at `at`; false when no key has this id. Revoking twice keeps the first time.
    func revoke(id: String, at: Date) throws -> Bool
}
