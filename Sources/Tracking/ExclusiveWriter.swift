import Synchronization
import Timeline

/// The ``TrackingWriter`` over a store several processes write (PostgreSQL). Each change runs in
/// the store's exclusive transaction: the tenant's tracking lock is held, the in-memory state is
/// brought up to date when another process committed since (its revision moved: the rows that
/// process's ingest wrote are caught up, anything else reloads the state), then the change is
/// planned, applied and committed. Within a process, changes and catch-ups take turns (``gate``),
/// so a reload never replaces a state a change is being planned on. Ingest commits in groups, as
/// ``GroupCommitWriter`` does: the batches that arrive while a transaction runs share the next one
/// (planned in arrival order, each answered after that commit), so a tenant's lock is taken once
/// per group, not once per batch; when a group's commit fails, its batches are tried one at a
/// time, so a batch the database refuses fails alone.
public final class ExclusiveWriter: TrackingWriter {
    private let store: any SharedTrackingStore
    private let state: Mutex<TrackingState>
    private let committed: TrackingCommitted
    /// The revision the state is current to (nil: reload before use).
    private let revision = Mutex<Int64?>(nil)
    /// This process's changes and catch-ups, one at a time.
    private let gate = AsyncGate()
    /// Ingest batches, committed a group at a time, and the changes' places among them.
    private let batches: CommitQueue<Queued, IngestPlan?>

    private enum Queued: Sendable {
        case batch(@Sendable (TrackingState) -> IngestPlan)
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

    public func ingest(_ plan: @escaping @Sendable (TrackingState) -> IngestPlan) async throws -> IngestPlan {
        guard let planned = try await batches.submit(.batch(plan)) else { preconditionFailure("a batch is answered its plan") }
        return planned
    }

    /// One transaction for a group's batches, planned once the lock is held (arrival times follow
    /// the order of evaluation), each on the state the ones before it left; barriers answer nil.
    private func commit(_ group: [Queued]) async throws -> [IngestPlan?] {
        let batches = group.compactMap { queued in if case .batch(let plan) = queued { plan } else { nil } }
        guard !batches.isEmpty else { return group.map { _ in nil } }
        var plans = try await exclusively { [self] transaction in
            var plans = state.withLock { state in
                batches.map { plan in
                    let planned = plan(state)
                    state.apply(planned)
                    return planned
                }
            }
            let duplicates = try await transaction.commit(.ingest(plans))
            for index in plans.indices { plans[index].markDuplicates(duplicates[index]) }
            return plans
        }[...]
        announce(plans.flatMap(\.events), to: committed)
        return group.map { queued in
            guard case .batch = queued else { return nil }
            return plans.popFirst()
        }
    }

    public func change<T: Sendable>(_ plan: @escaping @Sendable (TrackingState) throws -> (answer: T, write: TrackingWrite?)) async throws -> T {
        // After every batch that arrived before it, as GroupCommitWriter plans them.
        _ = try await batches.submit(.barrier)
        let (answer, write) = try await exclusively { [self] transaction in
            // Planned first, so a change that does not fit leaves the state as it is.
            let planned = try state.withLock { state in
                let planned = try plan(state)
                planned.write?.apply(to: &state)
                return planned
            }
            if let write = planned.write { _ = try await transaction.commit(write) }
            return planned
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

    /// Runs `body` in the store's exclusive transaction on a state brought up to the store's
    /// revision; after any failure the next change reloads the state (the store is the truth).
    private func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        try await gate.run { [self] in
            do {
                // Behind what others announced: catch up before waiting for the lock, so the
                // transaction that holds it has little or nothing left to read. Only a head
                // start: when it fails, the locked transaction catches up as it would have.
                if let mine = revision.withLock({ $0 }), store.announcedRevision > mine,
                   case let (changes?, reached)? = try? await store.changes(since: mine) {
                    state.withLock { $0.catchUp(changes) }
                    revision.withLock { $0 = reached }
                }
                let (result, (before, wrote)) = try await store.exclusively { [self] transaction in
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
                    return (try await body(transaction), (transaction.revision, transaction.wrote))
                }
                // Committed: the store advanced the revision by one if it wrote.
                revision.withLock { $0 = before + (wrote ? 1 : 0) }
                return result
            } catch {
                revision.withLock { $0 = nil }
                throw error
            }
        }
    }
}
