import Dispatch
import MapGeometry
import Synchronization
public import Timeline

/// The one place fixes and subscription changes go through, so event sequences are issued
/// gap-free in commit order and no two ingests see the same state.
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
public final class Tracker: Sendable {
    let state: Mutex<TrackingState>
    private let pending = Mutex<[Request]>([])
    private let writer = DispatchQueue(label: "meridian.tracker.writer")
    private let committer = DispatchQueue(label: "meridian.tracker.committer")
    /// The number of times the state was reloaded after a failed commit, and why the last time:
    /// a batch planned before a reload was planned on a lost state and fails with that error.
    private let reloads = Mutex<(count: Int, cause: (any Error)?)>((0, nil))
    /// Planned batches waiting for the committer, which commits all that wait in one transaction.
    private let planned = Mutex<[PlannedBatch]>([])

    private struct PlannedBatch: Sendable {
        var request: Request
        var plan: IngestPlan
        /// ``reloads`` when it was planned.
        var reloads: Int
    }
    /// Set when a failed commit left the in-memory state unknown and the store could not be
    /// reread; every later call fails until a restart reloads it.
    private let broken = Atomic<Bool>(false)
    /// The store only this process writes; nil over a shared one.
    private let local: (any TrackingStore)?
    /// The store several processes write (``Tracker+Shared``); nil over a local one.
    let shared: (any SharedTrackingStore)?
    /// The event log and fixes, read back.
    public let log: any TrackingLog
    let now: @Sendable () -> Instant
    let newID: @Sendable () -> String
    let committed: @Sendable (_ last: Int64, _ appended: Int) -> Void
    /// The last event sequence the store held when the tracker loaded it.
    public let loadedLastSequence: Int64
    /// Over a shared store: the revision the state is current to (nil: reload before use).
    let sharedRevision = Mutex<Int64?>(nil)
    /// Over a shared store: this process's changes and catch-ups, one at a time.
    let sharedGate = AsyncGate()

    /// The local store; only called where ``shared`` is nil.
    private var store: any TrackingStore {
        guard let local else { preconditionFailure("the local path runs over a local store only") }
        return local
    }

    /// A tracker over `store`, loading its state.
    /// - Parameters:
    ///   - now: the server clock.
    ///   - newID: fresh ids for subscriptions and events (time-ordered, never reused).
    ///   - committed: called with the last event sequence and how many events it appended, after each commit that wrote events.
    public init(
        store: any TrackingStore, now: @escaping @Sendable () -> Instant, newID: @escaping @Sendable () -> String,
        committed: @escaping @Sendable (_ last: Int64, _ appended: Int) -> Void = { _, _ in }
    ) throws {
        local = store
        shared = nil
        log = store
        self.now = now
        self.newID = newID
        self.committed = committed
        let loaded = try store.loadState()
        loadedLastSequence = loaded.lastSequence
        state = Mutex(loaded)
    }

    /// A tracker over a store several processes write, its state loaded.
    public init(
        shared store: any SharedTrackingStore, now: @escaping @Sendable () -> Instant, newID: @escaping @Sendable () -> String,
        committed: @escaping @Sendable (_ last: Int64, _ appended: Int) -> Void = { _, _ in }
    ) async throws {
        local = nil
        shared = store
        log = store
        self.now = now
        self.newID = newID
        self.committed = committed
        let (loaded, revision) = try await store.loadState()
        loadedLastSequence = loaded.lastSequence
        state = Mutex(loaded)
        sharedRevision.withLock { $0 = revision }
    }

    /// The answer to one ingest request.
    public struct IngestResult: Sendable {
        public var results: [IngestPlan.Result]
        public var skipped: [IngestPlan.Skip]
        public var events: [TrackingEvent]

        public init(results: [IngestPlan.Result], skipped: [IngestPlan.Skip], events: [TrackingEvent]) {
            (self.results, self.skipped, self.events) = (results, skipped, events)
        }
    }

    private struct Request: Sendable {
        var deviceId: String
        var fixes: [LocationFix]
        var continuation: CheckedContinuation<IngestResult, any Error>
    }

    /// Stores a device's batch and the events it causes, committed before this returns.
    public func ingest(deviceId: String, fixes: [LocationFix]) async throws -> IngestResult {
        if let shared { return try await sharedIngest(shared, deviceId: deviceId, fixes: fixes) }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0.append(Request(deviceId: deviceId, fixes: fixes, continuation: continuation)) }
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
                    let plan = state.plan(deviceId: request.deviceId, fixes: request.fixes, receivedAt: now(), eventID: newID)
                    state.apply(plan)
                    return PlannedBatch(request: request, plan: plan, reloads: reloads.withLock { $0.count })
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
            batch.request.continuation.resume(throwing: lost ? TrackerError.stateLost : cause ?? TrackerError.stateLost)
        }
        let current = lost ? [] : batches.filter { $0.reloads == count }
        guard !current.isEmpty else { return }
        let requests = current.map(\.request)
        var plans = current.map(\.plan)
        do {
            let duplicates = try store.commit(plans)
            for index in plans.indices { plans[index].markDuplicates(duplicates[index]) }
        } catch {
            // The state holds what failed and whatever was planned on it since: back to the store's.
            state.withLock { state in
                do { state = try store.loadState() } catch { broken.store(true, ordering: .relaxed) }
                reloads.withLock { $0 = ($0.count + 1, error) }
            }
            for request in requests { request.continuation.resume(throwing: error) }
            return
        }
        announce(plans.flatMap(\.events))
        for (request, plan) in zip(requests, plans) {
            request.continuation.resume(returning: IngestResult(results: plan.results, skipped: plan.skipped, events: plan.events))
        }
    }

    /// On the writer: waits until every planned batch is committed (or failed).
    private func settleCommits() {
        committer.sync {}
    }

    /// Stores a new subscription; it evaluates fixes from the next one on.
    public func subscribe(_ make: @escaping @Sendable (_ id: String, _ createdAt: Instant) -> Subscription) async throws -> Subscription {
        if let shared { return try await sharedSubscribe(shared, make) }
        return try await onWriter { [self] in
            try change { state in
                var subscription = make(newID(), now())
                subscription.acceptedFixesBefore = state.acceptedFixes
                state.add(subscription)
                try store.insert(subscription)
                return subscription
            }
        }
    }

    /// What deleting a subscription did.
    public enum Unsubscription: Sendable {
        /// Deleted now, with the exits it emitted.
        case deleted(DeletionPlan)
        /// Deleted earlier.
        case alreadyDeleted(Subscription)
        case notFound
    }

    /// Deletes a subscription; a region emits `regionDeleted` exits for the devices inside.
    public func unsubscribe(_ id: String) async throws -> Unsubscription {
        if let shared { return try await sharedUnsubscribe(shared, id) }
        let outcome = try await onWriter { [self] in
            try change { state -> Unsubscription in
                guard let existing = state.subscriptions[id] else { return .notFound }
                guard let plan = state.planDeletion(of: id, at: now(), eventID: newID) else { return .alreadyDeleted(existing) }
                state.apply(plan)
                try store.commit(plan)
                // On the writer, with the committer idle: the feed is told in order.
                announce(plan.events)
                return .deleted(plan)
            }
        }
        return outcome
    }

    /// What editing a subscription did.
    public enum Update: Sendable {
        /// Edited now, with the `regionChanged` events it emitted.
        case changed(ChangePlan)
        case deleted(Subscription)
        case notFound
    }

    /// Edits a subscription in place; a region whose geometry changes emits `regionChanged`
    /// enters and exits where a device's state flips, committed with the edit.
    /// - Throws: ``FieldError`` when the change does not fit the subscription (nothing changes).
    public func update(_ id: String, _ edit: SubscriptionChange) async throws -> Update {
        if let shared { return try await sharedUpdate(shared, id, edit) }
        let outcome = try await onWriter { [self] () throws -> Update in
            try checkUsable()
            // Planned first, so a change that does not fit leaves the state as it is.
            let planned = try state.withLock { state throws(FieldError) -> Update in
                guard let existing = state.subscriptions[id] else { return .notFound }
                guard let plan = try state.planChange(of: id, edit, at: now(), eventID: newID) else { return .deleted(existing) }
                return .changed(plan)
            }
            guard case .changed(let plan) = planned else { return planned }
            try change { state in
                state.apply(plan)
                try store.commit(plan)
            }
            announce(plan.events)
            return planned
        }
        return outcome
    }

    /// Tells `committed` about the events a commit appended, if any.
    func announce(_ events: [TrackingEvent]) {
        if let last = events.last { committed(last.sequence, events.count) }
    }

    /// Reads the committed state, between writes.
    public func read<T: Sendable>(_ body: @escaping @Sendable (TrackingState) -> T) async throws -> T {
        if let shared { return try await sharedRead(shared, body) }
        return try await onWriter { [self] in
            try checkUsable()
            return state.withLock { body($0) }
        }
    }

    /// Runs `body` on the writer, once every planned batch is committed, and hands its result back.
    private func onWriter<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writer.async { [self] in
                settleCommits()
                continuation.resume(with: Result(catching: body))
            }
        }
    }

    /// Changes the state and the store together. `body` changes the state first, then the store;
    /// when the store refuses, the state is reloaded from it (the store is the truth).
    private func change<T>(_ body: (inout TrackingState) throws -> T) throws -> T {
        try checkUsable()
        return try state.withLock { state in
            do {
                return try body(&state)
            } catch {
                do { state = try store.loadState() } catch { broken.store(true, ordering: .relaxed) }
                throw error
            }
        }
    }

    private func checkUsable() throws {
        if broken.load(ordering: .relaxed) { throw TrackerError.stateLost }
    }
}

/// Why the tracker cannot answer.
public enum TrackerError: Error, Hashable, Sendable {
    /// A commit failed and the store could not be read back; a restart reloads it.
    case stateLost
}
