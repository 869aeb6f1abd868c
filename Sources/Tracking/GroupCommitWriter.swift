import Dispatch
import Synchronization

/// The ``TrackingWriter`` over a store only this process writes (SQLite), with group commit.
///
/// Everything runs on two serial dispatch queues off the concurrency pool (the store's writes
/// block): a writer and a committer, a pipeline. Ingests queue; the writer plans each batch
/// against the in-memory ``TrackingState`` in arrival order, applies it there at once (so the next
/// batch sees it) and hands it to the committer, which commits every batch waiting in one
/// transaction (group commit) before their callers are answered, in the order they were planned.
/// When a commit fails, the committer reloads the state from the store (the truth); the callers of
/// that commit and of the batches planned on top of it get the error. When even that read fails,
/// tracking answers ``TrackerError/stateLost`` until a restart. Subscription changes and reads
/// wait for the committer to finish what was planned, so they never see a change that is applied
/// but not yet committed. Callers wait without holding a thread.
public final class GroupCommitWriter: TrackingWriter {
    private let store: any TrackingStore
    private let state: Mutex<TrackingState>
    private let committed: TrackingCommitted
    private let pending = Mutex<[Request]>([])
    private let writer = DispatchQueue(label: "meridian.tracker.writer")
    private let committer = DispatchQueue(label: "meridian.tracker.committer")
    /// The number of times the state was reloaded after a failed commit, and why the last time:
    /// a batch planned before a reload was planned on a lost state and fails with that error.
    private let reloads = Mutex<(count: Int, cause: (any Error)?)>((0, nil))
    /// Planned batches waiting for the committer, which commits all that wait in one transaction.
    private let planned = Mutex<[PlannedBatch]>([])
    /// Set when a failed commit left the in-memory state unknown and the store could not be
    /// reread; every later call fails until a restart reloads it.
    private let broken = Atomic<Bool>(false)
    public var log: any TrackingLog { store }
    public let loadedLastSequence: Int64
    /// Batches planned and waiting for the committer (what a test waits for instead of sleeping).
    var plannedBatches: Int { planned.withLock { $0.count } }

    private struct Request: Sendable {
        var plan: @Sendable (TrackingState) -> IngestPlan
        var continuation: CheckedContinuation<IngestPlan, any Error>
    }

    private struct PlannedBatch: Sendable {
        var continuation: CheckedContinuation<IngestPlan, any Error>
        var plan: IngestPlan
        /// ``reloads`` when it was planned.
        var reloads: Int
    }

    /// A writer over `store`, its state loaded.
    /// - Parameter committed: told of the events each commit appended.
    public init(store: any TrackingStore, committed: @escaping TrackingCommitted = { _, _ in }) throws {
        self.store = store
        self.committed = committed
        let loaded = try store.loadState()
        loadedLastSequence = loaded.lastSequence
        state = Mutex(loaded)
    }

    public func ingest(deviceId: String, _ plan: @escaping @Sendable (TrackingState) -> IngestPlan) async throws -> IngestPlan {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0.append(Request(plan: plan, continuation: continuation)) }
            writer.async { self.planPending() }
        }
    }

    /// Plans each queued request in order and applies it, handing it to the committer at once:
    /// the committer merges whatever waits into one transaction, so batches that arrive together
    /// do not all wait for the last one's planning (nor answer all at once, to arrive all at once again).
    private func planPending() {
        while let request = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            let planned = Result { () throws -> PlannedBatch in
                try state.withLock { state in
                    // Under the lock: a reload that failed meanwhile leaves a state nothing may be planned on.
                    try checkUsable()
                    let plan = request.plan(state)
                    state.apply(plan)
                    return PlannedBatch(continuation: request.continuation, plan: plan, reloads: reloads.withLock { $0.count })
                }
            }
            switch planned {
            case .success(let batch):
                self.planned.withLock { $0.append(batch) }
                committer.async { self.commitPlanned() }
            case .failure(let error):
                request.continuation.resume(throwing: error)
            }
        }
    }

    /// On the committer: commits every planned batch waiting, in one transaction, and answers them.
    private func commitPlanned() {
        let batches = planned.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        // Batches planned on top of one that failed to commit fail with it, and every batch once
        // the state is lost.
        let (count, cause) = reloads.withLock { $0 }
        let lost = broken.load(ordering: .relaxed)
        for batch in batches where lost || batch.reloads != count {
            batch.continuation.resume(throwing: lost ? TrackerError.stateLost : cause ?? TrackerError.stateLost)
        }
        let current = lost ? [] : batches.filter { $0.reloads == count }
        guard !current.isEmpty else { return }
        var plans = current.map(\.plan)
        do {
            let duplicates = try store.commit(.ingest(plans))
            for index in plans.indices { plans[index].markDuplicates(duplicates[index]) }
        } catch {
            // The state holds what failed and whatever was planned on it since: back to the store's.
            state.withLock { state in
                reload(&state)
                reloads.withLock { $0 = ($0.count + 1, error) }
            }
            for batch in current { batch.continuation.resume(throwing: error) }
            return
        }
        announce(plans.flatMap(\.events), to: committed)
        for (batch, plan) in zip(current, plans) { batch.continuation.resume(returning: plan) }
    }

    public func change<T: Sendable>(_ plan: @escaping @Sendable (TrackingState) throws -> (answer: T, write: TrackingWrite?)) async throws -> T {
        try await onWriter { [self] in
            try checkUsable()
            let (answer, write) = try state.withLock { state in
                // Planned first, so a change that does not fit leaves the state as it is.
                let planned = try plan(state)
                guard let write = planned.write else { return planned }
                write.apply(to: &state)
                do { _ = try store.commit(write) } catch {
                    reload(&state)
                    throw error
                }
                return planned
            }
            // On the writer, with the committer idle: the feed is told in order.
            if let write { announce(write.events, to: committed) }
            return answer
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (TrackingState) -> T) async throws -> T {
        try await onWriter { [self] in
            try checkUsable()
            return state.withLock { body($0) }
        }
    }

    /// Runs `body` on the writer, once every planned batch is committed, and hands its result back.
    private func onWriter<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.async { [self] in
                committer.sync {}
                continuation.resume(with: Result(catching: body))
            }
        }
    }

    /// After a failed commit: the state the store holds, or ``broken`` when it cannot be read.
    private func reload(_ state: inout TrackingState) {
        do { state = try store.loadState() } catch { broken.store(true, ordering: .relaxed) }
    }

    private func checkUsable() throws {
        if broken.load(ordering: .relaxed) { throw TrackerError.stateLost }
    }
}
