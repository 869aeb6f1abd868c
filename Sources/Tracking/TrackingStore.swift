public import Timeline

/// What tracking reads back from storage: the event log and the fixes, whichever engine holds them.
public protocol TrackingLog: Sendable {
    /// Events after `sequence` in sequence order, of one subscription or of all (`nil`).
    func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent]
    /// A device's stored fixes (accepted and late) from `from` to `to` inclusive, in time order.
    func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix]
}

/// What tracking needs from a store only this process writes (SQLite). Writes are synchronous
/// and each is one transaction: the ``Tracker`` holds its lock across them, so evaluation, commit
/// and the in-memory state move together.
public protocol TrackingStore: TrackingLog {
    /// Everything ``TrackingState`` is rebuilt from.
    func loadState() throws -> TrackingState
    /// Stores the plans' fixes, events, devices and progress in one transaction, in order; returns
    /// per plan the batch indexes of late fixes the device already had (duplicates, not stored again).
    func commit(_ plans: [IngestPlan]) throws -> [Set<Int>]
    /// Stores a new subscription.
    func insert(_ subscription: Subscription) throws
    /// Marks a subscription deleted, stores the exits it emits and drops its progress, in one transaction.
    func commit(_ plan: DeletionPlan) throws
    /// Stores an edited subscription, the progress it changed and the events it emitted, in one transaction.
    func commit(_ plan: ChangePlan) throws
}

/// What tracking needs from a store several processes write (PostgreSQL): every change is
/// planned and committed inside ``exclusively(_:)``, which holds the tenant's tracking lock, on a
/// state first brought up to the store's revision. So one device's fixes may arrive at any
/// process: each is evaluated once, in order, on the state every earlier one left.
public protocol SharedTrackingStore: TrackingLog {
    /// The tenant's tracking revision as committed now (every write transaction advances it).
    func revision() async throws -> Int64
    /// Everything ``TrackingState`` is rebuilt from, and the revision it is current to.
    func loadState() async throws -> (state: TrackingState, revision: Int64)
    /// Runs `body` in one transaction that holds the tenant's tracking lock (other processes'
    /// tracking writes wait for it) and advances the revision when it commits.
    func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T
}

/// One write transaction of a ``SharedTrackingStore``, holding the tenant's tracking lock.
public protocol TrackingTransaction: Sendable {
    /// The revision committed before this transaction.
    var revision: Int64 { get }
    /// Everything ``TrackingState`` is rebuilt from, as this transaction sees it.
    func loadState() async throws -> TrackingState
    /// As ``TrackingStore/commit(_:)-(IngestPlan)``.
    func commit(_ plans: [IngestPlan]) async throws -> [Set<Int>]
    func insert(_ subscription: Subscription) async throws
    func commit(_ plan: DeletionPlan) async throws
    func commit(_ plan: ChangePlan) async throws
}
