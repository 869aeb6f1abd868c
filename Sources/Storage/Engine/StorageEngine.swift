public import Access
public import Annotations
public import Delivery
public import Foundation
public import AnnotationIndex
public import Timeline
public import Tracking

/// An annotation store the server can thin from: the store protocols both engines implement.
public typealias ServedAnnotationStore = AnnotationStore & ThinningSource

/// Where Meridian keeps its data, chosen once at start by how `--database` is written
/// (``DatabasePlace/open(_:logger:onCommit:)``): ``SQLiteEngine`` (one process, the default) or
/// ``PostgresEngine`` (several instances sharing one database). It vends every store the server
/// and the commands use; nothing above it asks which engine it is.
public protocol StorageEngine: Sendable {
    /// `tenant`'s annotations, issuing ids from `ids` (one source for every tenant) and times from `now`.
    func annotations(tenant: TenantID, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date) -> any ServedAnnotationStore
    /// The greatest annotation id ever stored, live or deleted, in any tenant: seed for the id generator.
    func lastIssuedAnnotationID() async throws -> AnnotationID?
    /// The greatest subscription or event id ever stored, in any tenant: seed for the tracking id generator.
    func lastIssuedTrackingID() async throws -> UUIDv7?
    /// `tenant`'s tracking, as this engine is written: by this process alone, or shared by instances.
    func tracking(tenant: TenantID) -> TenantTracking
    /// `tenant`'s retention: its own settings, what was deleted, and the deletion of expired rows.
    func retention(tenant: TenantID) -> any RetentionStore
    /// `tenant`'s webhooks, and what moves when another instance changes them (nil: this one alone delivers).
    func webhooks(tenant: TenantID) -> (store: any WebhookStore, changes: SequenceSignal?)
    /// Makes the coming months' partitions of fixes and events (PostgreSQL; SQLite has none).
    func prepareHistory(now: Instant) async throws
    /// Drops every whole month of history all tenants have hidden (retention's marks):
    /// PostgreSQL keeps fixes and events in month partitions; SQLite deletes rows only (none).
    /// Returns what was dropped.
    func dropHiddenHistory(now: Instant) async throws -> [String]
    /// Every tenant that holds data, and `default`: the tenants to load before serving.
    func knownTenants() async throws -> [TenantID]
    /// What a request's key check reads: the `apiKey` table on SQLite, a copy of `api_key` that
    /// follows every instance's key writes on PostgreSQL.
    func keyDirectory() async throws -> any KeyDirectory
    /// Stores a new key (`meridian keys create`).
    func insert(_ key: APIKey) async throws
    /// Every key (of one tenant, or of all), oldest first (`meridian keys list`).
    func keys(tenant: TenantID?) async throws -> [APIKey]
    /// Revokes a key; false when no key has this id (`meridian keys revoke`).
    func revokeKey(id: String, at: Date) async throws -> Bool
    /// The migration steps the database holds, in order (`meridian migrate`).
    func appliedMigrations() async throws -> [String]
    /// Throws unless the database answers now (`GET /readyz`; a load balancer stops sending an
    /// instance that lost its PostgreSQL).
    func ping() async throws
    /// Makes the database whole in its own files before the process ends (SQLite folds its WAL
    /// in; PostgreSQL has nothing to do).
    func checkpoint() throws
    /// Finishes with the database (PostgreSQL's pool closes; SQLite's connections close with the process).
    func close() async
}

extension StorageEngine {
    /// `tenant`'s annotations, issuing ids from `ids` and times from the wall clock.
    public func annotations(tenant: TenantID, ids: any UUIDv7Source) -> any ServedAnnotationStore {
        annotations(tenant: tenant, ids: ids, now: Date.init)
    }

    /// `tenant`'s annotations, issuing ids after the greatest one ever stored.
    public func annotations(tenant: TenantID = .default, now: @escaping @Sendable () -> Date = Date.init) async throws -> any ServedAnnotationStore {
        annotations(tenant: tenant, ids: UUIDv7Generator(after: try await lastIssuedAnnotationID()), now: now)
    }
}

/// A tenant's tracking as its engine writes it: the writer its ``Tracker`` runs over (group commit
/// where this process alone writes, exclusive transactions where several instances do), the
/// signal committed events move, and the event log delivery reads.
public struct TenantTracking: Sendable {
    /// The event log delivery reads.
    public let log: any EventLogReader
    /// Moves when events commit: on a store shared by instances, also when another one commits them.
    public let events: SequenceSignal
    /// Opens the writer (loading the tenant's tracking state), telling `committed` of each commit.
    public let openWriter: @Sendable (_ committed: @escaping TrackingCommitted) async throws -> any TrackingWriter

    public init(
        log: any EventLogReader, events: SequenceSignal,
        openWriter: @escaping @Sendable (_ committed: @escaping TrackingCommitted) async throws -> any TrackingWriter
    ) {
        (self.log, self.events, self.openWriter) = (log, events, openWriter)
    }
}
