public import Access
public import Annotations
public import Foundation
public import Logging
public import Thinning
public import Timeline

/// An annotation store the server can thin from: the store protocols both engines implement.
public typealias ServedAnnotationStore = AnnotationStore & ThinningSource

/// Where Meridian keeps its data: the embedded SQLite file (the default) or a PostgreSQL
/// database several instances share, chosen by how `--database` is written. The stores on
/// either are the same protocols; this only opens them.
public enum MeridianStorage: Sendable {
    case sqlite(MeridianDatabase)
    case postgres(PostgresDatabase)

    /// Why a `--database` value cannot be opened.
    public struct PlaceError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `place` as output may show it: a database URL without its password.
    public static func displayName(_ place: String) -> String {
        guard PostgresLocation.isPostgres(place) else { return place }
        return PostgresLocation(place)?.description ?? "a malformed database URL"
    }

    /// Opens `place`: a `postgres://user@host:port/database` URL, or a SQLite file path (`:memory:` for none).
    /// - Parameter onCommit: told how long each SQLite write transaction's COMMIT took, in seconds.
    public static func open(
        _ place: String, logger: Logger = Logger(label: "meridian.storage"), onCommit: (@Sendable (TimeInterval) -> Void)? = nil
    ) async throws -> MeridianStorage {
        guard PostgresLocation.isPostgres(place) else { return .sqlite(try MeridianDatabase.open(path: place, onCommit: onCommit)) }
        guard let location = PostgresLocation(place) else {
            throw PlaceError(description: "--database is not a database URL: postgres://user[:password]@host[:port]/database")
        }
        do {
            return .postgres(try await PostgresDatabase.open(location, logger: logger))
        } catch {
            // postgres-nio's own description hides the reason (it may hold secrets); the reflection names it.
            throw PlaceError(description: "could not open the PostgreSQL database \(location): \(String(String(reflecting: error).prefix(400)))")
        }
    }

    /// `tenant`'s annotations, issuing ids from `ids` (one source for every tenant) and times from `now`.
    public func annotations(tenant: TenantID, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date = Date.init) -> any ServedAnnotationStore {
        switch self {
        case .sqlite(let database): SQLiteAnnotationStore(database: database, tenant: tenant, ids: ids, now: now)
        case .postgres(let database): PostgresAnnotationStore(database: database, tenant: tenant, ids: ids, now: now)
        }
    }

    /// `tenant`'s annotations, issuing ids after the greatest one ever stored.
    public func annotations(tenant: TenantID = .default, now: @escaping @Sendable () -> Date = Date.init) async throws -> any ServedAnnotationStore {
        annotations(tenant: tenant, ids: UUIDv7Generator(after: try await lastIssuedAnnotationID()), now: now)
    }

    /// The greatest annotation id ever stored, live or deleted, in any tenant: seed for the id generator.
    public func lastIssuedAnnotationID() async throws -> AnnotationID? {
        switch self {
        case .sqlite(let database): try await SQLiteAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
        case .postgres(let database): try await PostgresAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
        }
    }

    /// Every tenant that holds data, and `default`: the tenants to load before serving.
    public func knownTenants() async throws -> [TenantID] {
        switch self {
        case .sqlite(let database): try await database.knownTenants()
        case .postgres(let database): try await database.knownTenants()
        }
    }

    /// What a request's key check reads: the `apiKey` table on SQLite, a copy of `api_key` that
    /// follows every instance's key writes on PostgreSQL.
    public func keyDirectory() async throws -> any KeyDirectory {
        switch self {
        case .sqlite(let database): SQLiteKeyStore(database: database)
        case .postgres(let database): try await PostgresKeyStore.open(on: database)
        }
    }

    /// Stores a new key (`meridian keys create`).
    public func insert(_ key: APIKey) async throws {
        switch self {
        case .sqlite(let database): try SQLiteKeyStore(database: database).insert(key)
        case .postgres(let database): try await PostgresKeyStore.open(on: database, following: false).insert(key)
        }
    }

    /// Every key (of one tenant, or of all), oldest first (`meridian keys list`).
    public func keys(tenant: TenantID?) async throws -> [APIKey] {
        switch self {
        case .sqlite(let database): try SQLiteKeyStore(database: database).keys(tenant: tenant)
        case .postgres(let database): try await PostgresKeyStore.open(on: database, following: false).keys(tenant: tenant)
        }
    }

    /// Revokes a key; false when no key has this id (`meridian keys revoke`).
    public func revokeKey(id: String, at: Date) async throws -> Bool {
        switch self {
        case .sqlite(let database): try SQLiteKeyStore(database: database).revoke(id: id, at: at)
        case .postgres(let database): try await PostgresKeyStore.open(on: database, following: false).revoke(id: id, at: at)
        }
    }

    /// The migration steps the database holds, in order (`meridian migrate`).
    public func appliedMigrations() async throws -> [String] {
        switch self {
        case .sqlite(let database): try database.appliedMigrations()
        case .postgres(let database): try await database.appliedMigrations()
        }
    }

    /// Throws unless the database answers now (`GET /readyz`; a load balancer stops sending an
    /// instance that lost its PostgreSQL).
    public func ping() async throws {
        if case .postgres(let database) = self { try await database.ping() }
    }

    /// The SQLite database, when that is the engine.
    public var sqlite: MeridianDatabase? {
        if case .sqlite(let database) = self { database } else { nil }
    }

    /// Finishes with the database: PostgreSQL's pool closes (SQLite's connections close with the
    /// process; a server checkpoints first, ``MeridianDatabase/checkpoint()``).
    public func close() async {
        if case .postgres(let database) = self { await database.close() }
    }
}
