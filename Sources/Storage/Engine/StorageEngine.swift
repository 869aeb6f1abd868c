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
    /// `tenant`'s tracking store, as this engine is written: by this process alone, or shared by instances.
    func tracking(tenant: TenantID) -> TenantTracking
    /// `tenant`'s webhooks, and what moves when another instance changes them (nil: this one alone delivers).
    func webhooks(tenant: TenantID) -> (store: any WebhookStore, changes: SequenceSignal?)
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

/// A tenant's tracking store as its engine writes it, which decides how its ``Tracker`` runs; either
/// also reads the event log delivery sends.
public enum TenantTracking: Sendable {
    /// Only this process writes it (SQLite).
    case alone(any TrackingStore & EventLogReader)
    /// Several instances write it (PostgreSQL); `events` also moves when another instance commits events.
    case shared(any SharedTrackingStore & EventLogReader, events: SequenceSignal)

    /// The event log delivery reads.
    public var log: any EventLogReader {
        switch self {
        case .alone(let store): store
        case .shared(let store, _): store
        }
    }
}
