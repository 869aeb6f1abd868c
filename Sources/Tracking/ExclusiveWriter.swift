import Synchronization
import Timeline

/// The ``TrackingWriter`` over a store several processes write (PostgreSQL). Ingest commits in
/// groups, as ``GroupCommitWriter`` does: the batches that arrive while a transaction runs share
/// the next one (planned in arrival order, each answered after that commit); when a group's commit
/// fails, its batches are tried one at a time, so a batch the database refuses fails alone.
///
/// A group holds the locks of its devices only (``SharedTrackingStore/ingesting(devices:since:_:)``):
/// those devices are brought up to date from what other processes committed of them, then the
/// group is planned, applied and committed, and its events and ordinals take the numbers the store
/// gave them as it committed. Every other change (subscriptions, registry, filters, deadlines) runs
/// in the store's exclusive transaction on a state brought up to the store's revision (the rows
/// other processes' ingest wrote are caught up, anything else reloads the state); so does a group
/// when a write it cannot follow came between. Within a process, changes and catch-ups take turns
/// (``gate``), so a reload never replaces a state a change is being planned on.
public final class ExclusiveWriter: TrackingWriter {
    private let store: any SharedTrackingStore
    private let state: Mutex<TrackingState>
    private let committed: TrackingCommitted
    /// The revision the state is current to (nil: reload before use): it holds every commit up to
    /// it, and may hold later ones (its own, and the devices it locked since).
    private let revision = Mutex<Int64?>(nil)
    /// This process's changes and catch-ups, one at a time.
    private let gate = AsyncGate()
    /// Ingest batches, committed a group at a time, and the changes' places among them.
    private let batches: CommitQueue<Queued, IngestPlan?>

    private enum Queued: Sendable {
        case batch(deviceId: String, plan: @Sendable (TrackingState) -> IngestPlan)
        /// A change's place: answered once every batch queued before it is committed.
        case barrier
    }
    public var log: any TrackingLog { store }
    public let loadedLastSequence: Int64

    /// Ingest batches (and changes' places) waiting for the transaction under way to end (they make the next group).
    public var queuedIngests: Int { batches.waiting }

    /// A writer over `store`, its state loaded.
    /// - Parameter committed: told of the events each commit appended.
    /// - Parameter alone: whether a group of batches that failed with this error is tried again
    ///   one batch at a time (not when the database is unreachable or the commit's outcome unknown).
    public init(
        store: any SharedTrackingStore, alone: @escaping @Sendable (any Error) -> Bool = { _ in true },
        committed: @escaping TrackingCommitted = { _, _ in }
    ) async throws {
        batches = CommitQueue(alone: alone)
        self.store = store
        self.committed = committed
        let (loaded, revision) = try await store.loadState()
        loadedLastSequence = loaded.lastSequence
        state = Mutex(loaded)
        self.revision.withLock { $0 = revision }
        batches.bind { [weak self] group in
            guard let self else { throw CancellationError() }
            return try await self.commit(group)
        }
    }

    public func ingest(deviceId: String, _ plan: @escaping @Sendable (TrackingState) -> IngestPlan) async throws -> IngestPlan {
        guard let planned = try await batches.submit(.batch(deviceId: deviceId, plan: plan)) else { preconditionFailure("a batch is answered its plan") }
        return planned
    }

    /// One transaction for a group's batches, planned once the locks are held (arrival times follow
    /// the order of evaluation), each on the state the ones before it left; barriers answer nil.
    private func commit(_ group: [Queued]) async throws -> [IngestPlan?] {
        let batches = group.compactMap { queued in if case .batch(let deviceId, let plan) = queued { (deviceId, plan) } else { nil } }
        guard !batches.isEmpty else { return group.map { _ in nil } }
        let planners = batches.map(\.1)
        let devices = Set(batches.map(\.0)).sorted()
        var plans = try await gate.run { [self] in
            // No catch-up ahead: the group reads what changed of its own devices under their locks
            // (a read, a change or the timer's reread brings the rest of the state forward).
            if devices.count <= Self.devicesLockedAtMost {
                // A state to catch up from: after a failure or a write catching up cannot follow
                // (rare), loaded from a snapshot, outside every lock, then tried once more.
                for _ in 0..<2 {
                    if revision.withLock({ $0 }) == nil {
                        let (loaded, loadedRevision) = try await store.loadState()
                        state.withLock { $0 = loaded }
                        revision.withLock { $0 = loadedRevision }
                    }
                    guard let mine = revision.withLock({ $0 }) else { break }
                    do {
                        return try await ingesting(planners, devices: devices, since: mine)
                    } catch is Unfollowable {
                        revision.withLock { $0 = nil }
                    }
                }
            }
            // A group of many devices (one lock, not hundreds), or writes that keep coming between.
            try await catchUpAhead()
            return try await locked { [self] transaction in try await plan(planners, committingIn: transaction) }
        }[...]
        announce(plans.flatMap(\.events), to: committed)
        return group.map { queued in
            guard case .batch = queued else { return nil }
            return plans.popFirst()
        }
    }

    /// A write came between that catching up cannot follow: the state reloads.
    private struct Unfollowable: Error {}

    /// The devices a group locks one by one at most; a larger group takes the tenant's lock (each
    /// lock takes a slot of PostgreSQL's shared lock table, 64 per connection by default).
    static let devicesLockedAtMost = 64

    /// The group in a transaction holding its devices' locks, those devices caught up first.
    private func ingesting(_ planners: [@Sendable (TrackingState) -> IngestPlan], devices: [String], since mine: Int64) async throws -> [IngestPlan] {
        do {
            let (plans, transaction) = try await store.ingesting(devices: devices, since: mine) { [self] transaction, changes in
                guard let changes else { throw Unfollowable() }
                state.withLock { $0.catchUp(changes) }
                revision.withLock { $0 = nil }  // until the commit is known to have held
                return (try await plan(planners, committingIn: transaction), transaction)
            }
            let committedRevision = transaction.committedRevision
            // Its own commit moves the revision only when no other process committed between.
            revision.withLock { $0 = committedRevision == mine + 1 ? committedRevision : mine }
            return plans
        } catch let error as Unfollowable {
            throw error
        } catch {
            revision.withLock { $0 = nil }
            throw error
        }
    }

    /// Plans the batches in order on the state, applies each, commits them in `transaction`, and
    /// gives the plans and the state the numbers the store gave them.
    private func plan(_ planners: [@Sendable (TrackingState) -> IngestPlan], committingIn transaction: any TrackingTransaction) async throws -> [IngestPlan] {
        var plans = state.withLock { state in
            planners.map { plan in
                let planned = plan(state)
                state.apply(planned)
                return planned
            }
        }
        let duplicates = try await transaction.commit(.ingest(plans))
        let numbering = transaction.numbering
        for index in plans.indices {
            plans[index].markDuplicates(duplicates[index])
            plans[index].renumber(numbering)
        }
        state.withLock { $0.renumber(plans) }
        return plans
    }

    public func change<T: Sendable>(_ plan: @escaping @Sendable (TrackingState) throws -> (answer: T, write: TrackingWrite?)) async throws -> T {
        // After every batch that arrived before it, as GroupCommitWriter plans them.
        _ = try await batches.submit(.barrier)
        let (answer, write) = try await gate.run { [self] in
            try await catchUpAhead()
            return try await locked { [self] transaction in
                // Planned first, so a change that does not fit leaves the state as it is.
                let planned = try state.withLock { state in
                    let planned = try plan(state)
                    planned.write?.apply(to: &state)
                    return planned
                }
                if let write = planned.write { _ = try await transaction.commit(write) }
                // The state was current under the tenant's lock: its numbers are the store's.
                assert(transaction.numbering.isIdentity, "an exclusive change numbered apart from the store")
                return planned
            }
        }
        if let write { announce(write.events, to: committed) }
        return answer
    }

    /// Reads the state once it holds every change the store had committed when this was called.
    public func read<T: Sendable>(_ body: @escaping @Sendable (TrackingState) -> T) async throws -> T {
        try await gate.run { [self] in
            let mine = revision.withLock { $0 }
            let current = try await store.revision()
            if mine != current {
                if let mine, case let (changes?, changed) = try await store.changes(since: mine) {
                    state.withLock { $0.catchUp(changes) }
                    revision.withLock { $0 = changed }
                } else {
                    let (loaded, loadedRevision) = try await store.loadState()
                    state.withLock { $0 = loaded }
                    revision.withLock { $0 = loadedRevision }
                }
            }
            return state.withLock { body($0) }
        }
    }

    /// Behind what others announced: catches up before waiting for a lock, so the transaction that
    /// holds it has little or nothing left to read. Only a head start: when it fails, the locked
    /// transaction catches up as it would have.
    private func catchUpAhead() async throws {
        if let mine = revision.withLock({ $0 }), store.announcedRevision > mine,
           case let (changes?, reached)? = try? await store.changes(since: mine) {
            state.withLock { $0.catchUp(changes) }
            revision.withLock { $0 = reached }
        }
    }

    /// Runs `body` (in the ``gate``) in the store's exclusive transaction on a state brought up to
    /// the store's revision; after any failure the next change reloads the state (the store is the truth).
    private func locked<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        do {
            let (result, transaction) = try await store.exclusively { [self] transaction in
                let mine = revision.withLock { $0 }
                if mine != transaction.revision {
                    // Another process committed since: its changes, or the whole state.
                    if let mine, let changes = try await transaction.changes(since: mine) {
                        state.withLock { $0.catchUp(changes) }
                    } else {
                        let loaded = try await transaction.loadState()
                        state.withLock { $0 = loaded }
                    }
                }
                revision.withLock { $0 = nil }  // until the commit is known to have held
                return (try await body(transaction), transaction)
            }
            // Read once the store's transaction ended: it may write its counters after `body`.
            revision.withLock { $0 = transaction.committedRevision ?? transaction.revision }
            return result
        } catch {
            revision.withLock { $0 = nil }
            throw error
        }
    }
}
