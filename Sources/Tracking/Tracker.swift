import Dispatch
import Synchronization

/// The one place fixes and subscription changes go through: evaluates against the in-memory
/// ``TrackingState``, commits to the ``TrackingStore``, then updates the state, under one lock,
/// so event sequences are issued gap-free in commit order and no two ingests see the same state.
///
/// Ingests are group-committed: requests queue, and one writer (a serial dispatch queue, off the
/// concurrency pool, since the store's writes block) plans everything queued in arrival order and
/// commits it in one transaction. Callers wait without holding a thread.
public final class Tracker: Sendable {
    private let state: Mutex<TrackingState>
    private let pending = Mutex<[Request]>([])
    private let writer = DispatchQueue(label: "meridian.tracker.writer")
    public let store: any TrackingStore
    private let now: @Sendable () -> FixTime
    private let newID: @Sendable () -> String
    private let committed: @Sendable (Int64) -> Void

    /// A tracker over `store`, loading its state.
    /// - Parameters:
    ///   - now: the server clock.
    ///   - newID: fresh ids for subscriptions and events (time-ordered, never reused).
    ///   - committed: called with the last event sequence after each commit that wrote events.
    public init(
        store: any TrackingStore, now: @escaping @Sendable () -> FixTime, newID: @escaping @Sendable () -> String,
        committed: @escaping @Sendable (Int64) -> Void = { _ in }
    ) throws {
        self.store = store
        self.now = now
        self.newID = newID
        self.committed = committed
        state = Mutex(try store.loadState())
    }

    /// The answer to one ingest request.
    public struct IngestResult: Sendable {
        public var results: [IngestPlan.Result]
        public var skipped: [IngestPlan.Skip]
        public var events: [TrackingEvent]
    }

    private struct Request: Sendable {
        var deviceId: String
        var fixes: [LocationFix]
        var continuation: CheckedContinuation<IngestResult, any Error>
    }

    /// Stores a device's batch and the events it causes, committed before this returns.
    public func ingest(deviceId: String, fixes: [LocationFix]) async throws -> IngestResult {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0.append(Request(deviceId: deviceId, fixes: fixes, continuation: continuation)) }
            writer.async { self.commitPending() }
        }
    }

    /// Plans every queued request in order, commits them in one transaction, answers them.
    /// On a failed commit the state is reloaded from the store and every request of the group fails.
    private func commitPending() {
        let requests = pending.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
        guard !requests.isEmpty else { return }
        let outcome = state.withLock { state -> Result<[IngestPlan], any Error> in
            var plans: [IngestPlan] = []
            for request in requests {
                let plan = state.plan(deviceId: request.deviceId, fixes: request.fixes, receivedAt: now(), eventID: newID)
                state.apply(plan)
                plans.append(plan)
            }
            do {
                let duplicates = try store.commit(plans)
                for index in plans.indices { plans[index].markDuplicates(duplicates[index]) }
                return .success(plans)
            } catch {
                if let stored = try? store.loadState() { state = stored }
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let plans):
            if let last = plans.last(where: { !$0.events.isEmpty })?.events.last { committed(last.sequence) }
            for (request, plan) in zip(requests, plans) {
                request.continuation.resume(returning: IngestResult(results: plan.results, skipped: plan.skipped, events: plan.events))
            }
        case .failure(let error):
            for request in requests { request.continuation.resume(throwing: error) }
        }
    }

    /// Stores a new subscription; it evaluates fixes from the next one on.
    public func subscribe(_ make: (_ id: String, _ createdAt: FixTime) -> Subscription) throws -> Subscription {
        try state.withLock { state in
            var subscription = make(newID(), now())
            subscription.acceptedFixesBefore = state.acceptedFixes
            try store.insert(subscription)
            state.add(subscription)
            return subscription
        }
    }

    /// Deletes a subscription: nil when there is none, else it with its deletion time and the
    /// exits it emitted. Deleting a deleted one changes nothing and answers it again.
    public func unsubscribe(_ id: String) throws -> DeletionPlan? {
        let plan = try state.withLock { state -> DeletionPlan? in
            guard let existing = state.subscriptions[id] else { return nil }
            guard let plan = state.planDeletion(of: id, at: now(), eventID: newID) else { return DeletionPlan(subscription: existing) }
            try store.commit(plan)
            state.apply(plan)
            return plan
        }
        if let last = plan?.events.last { committed(last.sequence) }
        return plan
    }

    /// Reads the current state.
    public func read<T>(_ body: (TrackingState) throws -> T) rethrows -> T {
        try state.withLock { try body($0) }
    }
}
