public import Timeline

/// What tracking reads back from storage: the event log and the fixes, whichever engine holds them.
public protocol TrackingLog: Sendable {
    /// Events after `sequence` in sequence order, of one subscription or of all (`nil`).
    func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent]
    /// A device's stored fixes (accepted and late) from `from` to `to` inclusive, in time order.
    func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix]
}

/// What tracking needs from a store only this process writes (SQLite), for a
/// ``GroupCommitWriter``. Its calls are synchronous on purpose: the writer makes them on its own
/// dispatch queues, off the concurrency pool, and each is one transaction, committed before it returns.
public protocol TrackingStore: TrackingLog {
    /// Everything ``TrackingState`` is rebuilt from.
    func loadState() throws -> TrackingState
    /// Commits `write` in one transaction; returns what ``TrackingWrite`` says it returns.
    func commit(_ write: TrackingWrite) throws -> [Set<Int>]
}

/// What tracking needs from a store several processes write (PostgreSQL), for an
/// ``ExclusiveWriter``: an ingest is planned and committed inside ``ingesting(devices:since:_:)``,
/// which holds its devices' locks, on those devices brought up to date; every other change inside
/// ``exclusively(_:)``, which holds the tenant's tracking lock, on a state first brought up to the
/// store's revision. So one device's fixes may arrive at any process: each is evaluated once, in
/// order, on the state every earlier one left.
public protocol SharedTrackingStore: TrackingLog {
    /// The tenant's tracking revision as committed now (every write transaction advances it).
    func revision() async throws -> Int64
    /// Everything ``TrackingState`` is rebuilt from, and the revision it is current to.
    func loadState() async throws -> (state: TrackingState, revision: Int64)
    /// Runs `body` in one transaction that holds the tenant's tracking lock (other processes'
    /// tracking writes wait for it) and advances the revision by one when it commits a write
    /// (``TrackingTransaction/wrote``): a transaction that found nothing to do (a deadline another
    /// process fired) sends no other process reloading.
    func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T
    /// Runs `body` in one transaction that holds the tracking locks of `devices` only, with the
    /// tenant's lock shared (``exclusively(_:)`` waits for every such transaction, and they for
    /// it), given what other processes' commits changed of those devices since `revision` (nil
    /// changes: a write since cannot be followed; the writer takes the exclusive way instead). So
    /// batches of different devices commit side by side on several processes, one device's fixes
    /// still evaluated once and in order. Another process may commit between this one's planning
    /// and its commit, so the store numbers the events and accepted fixes as it writes them
    /// (``TrackingTransaction/numbering``).
    func ingesting<T: Sendable>(
        devices: [String], since revision: Int64, _ body: @escaping @Sendable (any TrackingTransaction, TrackingChanges?) async throws -> T
    ) async throws -> T
    /// What changed since `revision` and the revision that is current to, read together; nil
    /// changes when only a reload brings a state up to date (``TrackingTransaction/changes(since:)``).
    func changes(since revision: Int64) async throws -> (changes: TrackingChanges?, revision: Int64)
    /// The latest revision this process has heard other processes' commits reach (a hint: a
    /// writer behind it catches up before it waits for the tenant's lock, so the lock is held
    /// for less).
    var announcedRevision: Int64 { get }
}

extension SharedTrackingStore {
    /// A store that cannot tell what changed: always a reload.
    public func changes(since revision: Int64) async throws -> (changes: TrackingChanges?, revision: Int64) {
        (nil, try await self.revision())
    }

    /// A store that announces nothing: writers catch up under the lock only.
    public var announcedRevision: Int64 { 0 }

    /// A store without device locks: the tenant's exclusive transaction, caught up from `revision`.
    public func ingesting<T: Sendable>(
        devices: [String], since revision: Int64, _ body: @escaping @Sendable (any TrackingTransaction, TrackingChanges?) async throws -> T
    ) async throws -> T {
        try await exclusively { transaction in
            try await body(transaction, transaction.revision == revision ? TrackingChanges.none : try await transaction.changes(since: revision))
        }
    }
}

/// One write transaction of a ``SharedTrackingStore``, holding the tenant's tracking lock or its devices'.
public protocol TrackingTransaction: Sendable {
    /// The revision committed before this transaction.
    var revision: Int64 { get }
    /// Everything ``TrackingState`` is rebuilt from, as this transaction sees it.
    func loadState() async throws -> TrackingState
    /// Writes `write` in this transaction (committed with it); returns what ``TrackingWrite`` says it returns.
    func commit(_ write: TrackingWrite) async throws -> [Set<Int>]
    /// Whether ``commit(_:)`` was called: the revision advances only then.
    var wrote: Bool { get }
    /// What other processes' commits changed since `revision` (older than this transaction's),
    /// as this transaction sees it; nil when a write since was not ingest or status deadlines
    /// (or the store cannot tell): then only ``loadState()`` brings a state up to date.
    func changes(since revision: Int64) async throws -> TrackingChanges?
    /// The revision this transaction's commit makes (nil: it wrote nothing).
    var committedRevision: Int64? { get }
    /// How the store numbered what ``commit(_:)`` wrote, against the plans' numbers.
    var numbering: CommitNumbering { get }
}

extension TrackingTransaction {
    public func changes(since revision: Int64) async throws -> TrackingChanges? { nil }
    /// A store whose transactions hold the tenant's lock from the start: the next revision, its numbers the plans'.
    public var committedRevision: Int64? { wrote ? revision + 1 : nil }
    public var numbering: CommitNumbering { CommitNumbering() }
}
