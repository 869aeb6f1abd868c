public import Access
public import Annotations
public import Delivery
public import Foundation
public import Timeline
public import Tracking

/// ``StorageEngine`` on the embedded SQLite file: one process writes it, through one writer.
public struct SQLiteEngine: StorageEngine {
    /// The database every store of this engine shares.
    public let database: MeridianDatabase

    /// The engine over `database` (already migrated).
    public init(_ database: MeridianDatabase) {
        self.database = database
    }

    public func annotations(tenant: TenantID, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date) -> any ServedAnnotationStore {
        SQLiteAnnotationStore(database: database, tenant: tenant, ids: ids, now: now)
    }

    public func lastIssuedAnnotationID() async throws -> AnnotationID? {
        try await SQLiteAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
    }

    public func lastIssuedTrackingID() async throws -> UUIDv7? {
        try await SQLiteTrackingStore(database: database).lastIssuedID()
    }

    public func tracking(tenant: TenantID) -> TenantTracking {
        let store = SQLiteTrackingStore(database: database, tenant: tenant)
        return TenantTracking(log: store, events: SequenceSignal(latest: 0)) { try GroupCommitWriter(store: store, committed: $0) }
    }

    public func retention(tenant: TenantID) -> any RetentionStore {
        SQLiteRetentionStore(database: database, tenant: tenant)
    }

    public func webhooks(tenant: TenantID) -> (store: any WebhookStore, changes: SequenceSignal?) {
        (SQLiteWebhookStore(database: database, tenant: tenant), nil)
    }

    /// None: SQLite's history is one table per kind, and retention deletes its rows.
    public func prepareHistory(now: Instant) async throws {}
    public func dropHiddenHistory(now: Instant) async throws -> [String] { [] }

    public func knownTenants() async throws -> [TenantID] {
        try await database.knownTenants()
    }

    public func keyDirectory() async throws -> any KeyDirectory {
        SQLiteKeyStore(database: database)
    }

    public func insert(_ key: APIKey) async throws {
        try SQLiteKeyStore(database: database).insert(key)
    }

    public func keys(tenant: TenantID?) async throws -> [APIKey] {
        try SQLiteKeyStore(database: database).keys(tenant: tenant)
    }

    public func revokeKey(id: String, at: Date) async throws -> Bool {
        try SQLiteKeyStore(database: database).revoke(id: id, at: at)
    }

    public func appliedMigrations() async throws -> [String] {
        try database.appliedMigrations()
    }

    /// A SQLite file that opened answers as long as the process runs.
    public func ping() async throws {}

    public func checkpoint() throws {
        try database.checkpoint()
    }

    /// SQLite's connections close with the process (a server checkpoints first).
    public func close() async {}
}
