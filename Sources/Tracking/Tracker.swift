import MapGeometry
public import Timeline

/// The one place fixes and subscription changes go through, so event sequences are issued
/// gap-free in commit order and no two ingests see the same state.
///
/// The tracker plans (``TrackingState``'s pure plan → apply → commit, each plan made on the state
/// every earlier one left) and its ``TrackingWriter`` decides how the plans reach storage and keeps
/// the state current: a ``GroupCommitWriter`` in one process over SQLite, an ``ExclusiveWriter``
/// in several over PostgreSQL. Every call answers once its change is committed.
public final class Tracker: Sendable {
    let writer: any TrackingWriter
    let now: @Sendable () -> Instant
    let newID: @Sendable () -> String
    /// Told the earliest status deadline each committed ingest or edit set.
    let deadlineSet: @Sendable (Instant) -> Void

    /// A tracker committing through `writer` (whose state is loaded).
    /// - Parameters:
    ///   - now: the server clock.
    ///   - newID: fresh ids for subscriptions and events (time-ordered, never reused).
    ///   - deadlineSet: told the earliest status deadline each committed ingest or edit set (a
    ///     timer waiting for a later one wakes earlier).
    public init(
        writer: any TrackingWriter, now: @escaping @Sendable () -> Instant, newID: @escaping @Sendable () -> String,
        deadlineSet: @escaping @Sendable (Instant) -> Void = { _ in }
    ) {
        self.writer = writer
        self.now = now
        self.newID = newID
        self.deadlineSet = deadlineSet
    }

    /// The server clock's time now (what a fix without a time of its own is stamped with).
    public var currentTime: Instant { now() }

    /// The event log and fixes, read back.
    public var log: any TrackingLog { writer.log }
    /// The last event sequence the store held when the tracker loaded it.
    public var loadedLastSequence: Int64 { writer.loadedLastSequence }

    /// The answer to one ingest request.
    public struct IngestResult: Sendable {
        public var results: [IngestPlan.Result]
        public var skipped: [IngestPlan.Skip]
        public var events: [TrackingEvent]

        public init(results: [IngestPlan.Result], skipped: [IngestPlan.Skip], events: [TrackingEvent]) {
            (self.results, self.skipped, self.events) = (results, skipped, events)
        }
    }

    /// Stores a device's batch and the events it causes, committed before this returns.
    public func ingest(deviceId: String, fixes: [LocationFix]) async throws -> IngestResult {
        let plan = try await writer.ingest(deviceId: deviceId) { [now, newID] state in
            state.plan(deviceId: deviceId, fixes: fixes, receivedAt: now(), eventID: newID)
        }
        if let earliest = plan.statuses.values.compactMap(\.nextDeadline).min() { deadlineSet(earliest) }
        return IngestResult(results: plan.results, skipped: plan.skipped, events: plan.events)
    }

    /// Stores a new subscription; it evaluates fixes from the next one on.
    public func subscribe(_ make: @escaping @Sendable (_ id: String, _ createdAt: Instant) -> Subscription) async throws -> Subscription {
        try await writer.change { [now, newID] state in
            var subscription = make(newID(), now())
            subscription.acceptedFixesBefore = state.acceptedFixes
            return (subscription, .subscription(subscription))
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
        try await writer.change { [now, newID] state -> (answer: Unsubscription, write: TrackingWrite?) in
            guard let existing = state.subscriptions[id] else { return (.notFound, nil) }
            guard let plan = state.planDeletion(of: id, at: now(), eventID: newID) else { return (.alreadyDeleted(existing), nil) }
            return (.deleted(plan), .deletion(plan))
        }
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
        let update = try await writer.change { [now, newID] state -> (answer: Update, write: TrackingWrite?) in
            guard let existing = state.subscriptions[id] else { return (.notFound, nil) }
            guard let plan = try state.planChange(of: id, edit, at: now(), eventID: newID) else { return (.deleted(existing), nil) }
            return (.changed(plan), .change(plan))
        }
        if case .changed(let plan) = update, let earliest = plan.statuses.values.compactMap(\.nextDeadline).min() { deadlineSet(earliest) }
        return update
    }

    /// Replaces the tenant's ingest filters; the next fix planned after this returns (on any
    /// instance: the write advances the store's revision) is checked by them.
    public func setIngestFilters(_ filters: IngestFilters) async throws {
        try await writer.change { _ in ((), .ingestFilters(filters)) }
    }

    /// Reads the committed state, between writes.
    public func read<T: Sendable>(_ body: @escaping @Sendable (TrackingState) -> T) async throws -> T {
        try await writer.read(body)
    }
}

/// Why the tracker cannot answer.
public enum TrackerError: Error, Hashable, Sendable {
    /// A commit failed and the store could not be read back; a restart reloads it.
    case stateLost
}
