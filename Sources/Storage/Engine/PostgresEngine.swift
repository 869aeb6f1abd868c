public import Access
public import Annotations
public import Delivery
public import Foundation
public import Timeline
public import Tracking

/// ``StorageEngine`` on a PostgreSQL database several instances share: every write locks what it
/// orders by, and notifications tell the other instances what changed.
public struct PostgresEngine: StorageEngine {
    /// The connection pool every store of this engine shares.
    public let database: PostgresDatabase

    /// The engine over `database` (already migrated).
    public init(_ database: PostgresDatabase) {
        self.database = database
    }

    public func annotations(tenant: TenantID, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date) -> any ServedAnnotationStore {
        PostgresAnnotationStore(database: database, tenant: tenant, ids: ids, now: now)
    }

    public func lastIssuedAnnotationID() async throws -> AnnotationID? {
        try await PostgresAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
    }

    public func lastIssuedTrackingID() async throws -> UUIDv7? {
        try await PostgresTrackingStore.lastIssuedID(on: database)
    }

    public func tracking(tenant: TenantID) -> TenantTracking {
        let store = PostgresTrackingStore(database: database, tenant: tenant)
        return TenantTracking(log: store, events: store.eventSignal) {
            try await ExclusiveWriter(store: store, alone: { StorageError.retryable($0) == nil }, committed: $0)
        }
    }

    public func retention(tenant: TenantID) -> any RetentionStore {
        PostgresRetentionStore(database: database, tenant: tenant)
    }

    public func webhooks(tenant: TenantID) -> (store: any WebhookStore, changes: SequenceSignal?) {
        let store = PostgresWebhookStore(database: database, tenant: tenant)
        return (store, store.changes)
    }

    public func prepareHistory(now: Instant) async throws {
        try await PostgresHistory.prepare(database, now: now)
    }

    public func dropHiddenHistory(now: Instant) async throws -> [String] {
        try await PostgresHistory.dropHidden(database, now: now)
    }

    public func knownTenants() async throws -> [TenantID] {
        try await database.knownTenants()
    }

    public func keyDirectory() async throws -> any KeyDirectory {
        try await PostgresKeyStore.open(on: database)
    }

    public func insert(_ key: APIKey) async throws {
        try await PostgresKeyStore.open(on: database, following: false).insert(key)
    }

    public func keys(tenant: TenantID?) async throws -> [APIKey] {
        try await PostgresKeyStore.open(on: database, following: false).keys(tenant: tenant)
    }

    public func revokeKey(id: String, at: Date) async throws -> Bool {
        try await PostgresKeyStore.open(on: database, following: false).revoke(id: id, at: at)
    }

    public func appliedMigrations() async throws -> [String] {
        try await database.appliedMigrations()
    }

    public func ping() async throws {
        try await database.ping()
    }

    /// PostgreSQL keeps its own files whole.
    public func checkpoint() throws {}

    public func close() async {
        await database.close()
    }
}
