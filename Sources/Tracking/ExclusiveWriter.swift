import Synchronization
import Timeline

/// The ``TrackingWriter`` over a store several processes write (PostgreSQL). Each change runs in
/// the store's exclusive transaction: the tenant's tracking lock is held, the in-memory state is
/// reloaded when another process committed since (its revision moved), then the change is
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
    /// Ingest batches waiting for the next group, and whether a task is committing groups.
    private let queue = Mutex<(batches: [Batch], draining: Bool)>(([], false))
    public var log: any TrackingLog { store }
    public let loadedLastSequence: Int64

    private struct Batch: Sendable {
        var plan: @Sendable (TrackingState) -> IngestPlan
        var continuation: CheckedContinuation<IngestPlan, any Error>
    }

    /// Ingest batches waiting for the transaction under way to end (they make the next group).
    public var queuedIngests: Int { queue.withLock { $0.batches.count } }

    /// A writer over `store`, its state loaded.
    /// - Parameter committed: told of the events each commit appended.
    public init(store: any SharedTrackingStore, committed: @escaping TrackingCommitted = { _, _ in }) async throws {
        self.store = store
        self.committed = committed
        let (loaded, revision) = try await store.loadState()
        loadedLastSequence = loaded.lastSequence
        state = Mutex(loaded)
        self.revision.withLock { $0 = revision }
    }

    public func ingest(_ plan: @escaping @Sendable (TrackingState) -> IngestPlan) async throws -> IngestPlan {
        try await withCheckedThrowingContinuation { continuation in
            let start = queue.withLock { queue in
                queue.batches.append(Batch(plan: plan, continuation: continuation))
                defer { queue.draining = true }
                return !queue.draining
            }
            if start { Task { await drain() } }
        }
    }

    /// Commits the waiting batches a group at a time until none waits.
    private func drain() async {
        while true {
            let group = queue.withLock { queue in
                defer { queue.batches.removeAll(keepingCapacity: true) }
                if queue.batches.isEmpty { queue.draining = false }
                return queue.batches
            }
            guard !group.isEmpty else { return }
            await commit(group)
        }
    }

    /// One transaction for `group`, planned once the lock is held (arrival times follow the order
    /// of evaluation), each batch on the state the ones before it left; on failure, each alone.
    private func commit(_ group: [Batch]) async {
        do {
            let plans = try await exclusively { [self] transaction in
                var plans = state.withLock { state in
                    group.map { batch in
                        let planned = batch.plan(state)
                        state.apply(planned)
                        return planned
                    }
                }
                let duplicates = try await transaction.commit(.ingest(plans))
                for index in plans.indices { plans[index].markDuplicates(duplicates[index]) }
                return plans
            }
            announce(plans.flatMap(\.events), to: committed)
            for (batch, plan) in zip(group, plans) { batch.continuation.resume(returning: plan) }
        } catch {
            guard group.count > 1 else { return group[0].continuation.resume(throwing: error) }
            // Nothing of the group was committed and the state reloads: each batch again, alone.
            for batch in group { await commit([batch]) }
        }
    }

    public func change<T: Sendable>(_ plan: @escaping @Sendable (TrackingState) throws -> (answer: T, write: TrackingWrite?)) async throws -> T {
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
            let current = try await store.revision()
            if revision.withLock({ $0 }) != current {
                let (loaded, loadedRevision) = try await store.loadState()
                state.withLock { $0 = loaded }
                revision.withLock { $0 = loadedRevision }
            }
            return state.withLock { body($0) }
        }
    }

    /// Runs `body` in the store's exclusive transaction on a state brought up to the store's
    /// revision; after any failure the next change reloads the state (the store is the truth).
    private func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        try await gate.run { [self] in
            do {
                let (result, (before, wrote)) = try await store.exclusively { [self] transaction in
                    if revision.withLock({ $0 }) != transaction.revision {
                        let loaded = try await transaction.loadState()
                        state.withLock { $0 = loaded }
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
