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

    /// Opens `place`: a `postgres://user@host:port/database` URL, or a SQLite file path (`:memory:` for none).
    /// - Parameter onCommit: told how long each SQLite write transaction's COMMIT took, in seconds.
    public static func open(
        _ place: String, logger: Logger = Logger(label: "meridian.storage"), onCommit: (@Sendable (TimeInterval) -> Void)? = nil
    ) async throws -> MeridianStorage {
        guard PostgresLocation.isPostgres(place) else { return .sqlite(try MeridianDatabase.open(path: place, onCommit: onCommit)) }
        guard let location = PostgresLocation(place) else {
            throw PlaceError(description: "\(place) is not a database URL: postgres://user[:password]@host[:port]/database")
        }
        return .postgres(try await PostgresDatabase.open(location, logger: logger))
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

    /// The SQLite database, when that is the engine.
    public var sqlite: MeridianDatabase? {
        if case .sqlite(let database) = self { database } else { nil }
    }

    /// Finishes with the database: SQLite moves its WAL into the file; PostgreSQL's pool closes.
    public func close() async throws {
        switch self {
        case .sqlite(let database): try database.checkpoint()
        case .postgres(let database): await database.close()
        }
    }
}
