public import Foundation
import Synchronization
public import Timeline

/// Who is calling: the tenant every read and write of the request is confined to, and the role
/// that decides which operations it may call.
public struct Principal: Hashable, Sendable {
    public var tenant: TenantID
    public var role: Role
    /// The key's id; nil in open mode.
    public var keyID: String?

    public init(tenant: TenantID, role: Role, keyID: String?) {
        self.tenant = tenant
        self.role = role
        self.keyID = keyID
    }

    /// Open mode's caller: the default tenant, every permission.
    public static let open = Principal(tenant: .default, role: .admin, keyID: nil)
}

/// Why a request was refused before it reached an operation (HTTP-free: 401 or 403).
public enum AccessError: Error, Hashable, Sendable {
    /// No `Authorization: Bearer` token.
    case missingCredentials
    /// A token that names no key, a wrong secret, or a revoked key (which are not told apart).
    case invalidCredentials
    /// A valid key whose role lacks the permission.
    case forbidden(Role, Permission)
    /// The keys could not be read (the database failed): neither admitted nor refused.
    case unavailable
}

/// Turns a request's bearer token into a ``Principal``.
///
/// Open mode (no key needed) holds only while the server was started on loopback (or with
/// `--insecure-open`) and no key was ever created; the first key created, by any process, ends
/// it for good at the next request.
public final class Gatekeeper: Sendable {
    private let store: any KeyDirectory
    private let open: Atomic<Bool>

    /// - Parameter openWhenNoKeys: whether a store without keys lets every request in.
    public init(store: any KeyDirectory, openWhenNoKeys: Bool) throws {
        self.store = store
        open = Atomic(openWhenNoKeys ? try !store.anyKeyExists() : false)
    }

    /// Whether requests need no key now; ``AccessError/unavailable`` when the keys cannot be read
    /// (a passing failure must neither open the door nor close open mode for good).
    public func isOpen() throws(AccessError) -> Bool {
        guard open.load(ordering: .relaxed) else { return false }
        let keysExist: Bool
        do { keysExist = try store.anyKeyExists() } catch { throw .unavailable }
        if keysExist { open.store(false, ordering: .relaxed) }
        return !keysExist
    }

    /// The caller of a request with this `Authorization` header value.
    public func principal(authorization: String?) throws(AccessError) -> Principal {
        if try isOpen() { return .open }
        guard let authorization, let token = Self.bearerToken(authorization) else { throw .missingCredentials }
        guard let (id, secret) = KeySecret.parse(token) else { throw .invalidCredentials }
        let found: APIKey?
        do { found = try store.key(id: id) } catch { throw .unavailable }
        guard let key = found, key.revokedAt == nil, KeySecret.verifies(secret, key) else { throw .invalidCredentials }
        return Principal(tenant: key.tenant, role: key.role, keyID: key.id)
    }

    /// Whether the key with `id` is revoked or gone now; false while the keys cannot be read
    /// (a passing failure ends no stream).
    public func isRevoked(keyID id: String) -> Bool {
        do {
            return try store.key(id: id).map { $0.revokedAt != nil } ?? true
        } catch {
            return false
        }
    }

    /// The token of a `Bearer` credential (RFC 6750 §2.1: the scheme is case-insensitive).
    static func bearerToken(_ value: String) -> Substring? {
        let trimmed = value.drop(while: { $0 == " " })
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).drop(while: { $0 == " " })
        let end = token.lastIndex(where: { $0 != " " }).map { token.index(after: $0) } ?? token.startIndex
        return token[..<end].isEmpty ? nil : token[..<end]
    }
}

extension Principal {
    /// Throws ``AccessError/forbidden(_:_:)`` unless the role grants `permission`.
    public func require(_ permission: Permission) throws(AccessError) {
        if !role.grants(permission) { throw .forbidden(role, permission) }
    }
}
