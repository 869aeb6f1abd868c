import MeridianHTTP
import Foundation
import HTTPTypes
import Storage
import Synchronization
import Tracking
import Timeline

/// The server's side of tracking: the tracker, and the signal long polls and streams wait on.
struct TrackingHub: Sendable {
    let tracker: Tracker
    /// Advanced to the last event sequence after every commit that wrote events.
    let feed: SequenceSignal
    /// The greatest sequence any reader (long poll, stream) has been given: the events after it
    /// are unread, and the oldest one's age is a metric.
    let delivered: HighWaterMark
    /// Fires the tenant's status deadlines (``run(deadlinesFired:)``).
    let deadlines: DeadlineTimer
    /// The tenant's retention: what it deleted, read after each read of the log (``checkCursor(_:)``).
    let retention: any RetentionStore

    /// A tenant's hub over its `tracking` (``StorageEngine/tracking(tenant:)``), its state loaded,
    /// issuing UUIDv7 ids from `ids`. On a store shared with other instances its feed signal also
    /// moves when another instance commits events (the store's notifications).
    /// - Parameter appended: told how many events each commit appended.
    static func open(
        _ tracking: TenantTracking, retention: any RetentionStore, ids: UUIDv7Generator, appended: @escaping @Sendable (Int64) -> Void = { _ in }
    ) async throws -> TrackingHub {
        let feed = tracking.events
        let deadlines = DeadlineTimer()
        let tracker = Tracker(
            writer: try await tracking.openWriter(announcer(feed, appended)), now: Self.now, newID: { ids.next().description },
            deadlineSet: { deadlines.noticed($0) })
        feed.advance(to: tracker.loadedLastSequence)
        return TrackingHub(tracker: tracker, feed: feed, delivered: HighWaterMark(), deadlines: deadlines, retention: retention)
    }

    /// Fires the tenant's status deadlines as they fall due until the task is cancelled.
    func run(deadlinesFired: @escaping @Sendable (Int) -> Void) async {
        await deadlines.run(tracker, fired: deadlinesFired)
    }

    private static let now: @Sendable () -> Instant = { Instant(secondsSince1970: Date().timeIntervalSince1970) }

    /// After a commit: wakes the feed's readers and counts the events appended.
    private static func announcer(_ feed: SequenceSignal, _ appended: @escaping @Sendable (Int64) -> Void) -> @Sendable (Int64, Int) -> Void {
        { last, count in
            feed.advance(to: last)
            appended(Int64(count))
        }
    }

    /// The age of the oldest event no reader has been given yet, in seconds; 0 when all were read.
    func oldestUnreadAge(now: Instant) async throws -> Double {
        guard feed.latest > delivered.value, let next = try await tracker.log.events(subscriptionId: nil, after: delivered.value, limit: 1).first else { return 0 }
        return Double(now.microseconds - next.recordedAt.microseconds) / 1e6
    }

    /// Events after `sequence` (of one subscription, or all); when there are none yet, waits up
    /// to `wait` for one and answers as soon as it is committed.
    func events(subscriptionId: String?, after sequence: Int64, limit: Int, wait: Duration) async throws -> [TrackingEvent] {
        let deadline = ContinuousClock.now + wait
        var scanned = sequence
        while true {
            let latest = feed.latest
            let events = try await tracker.log.events(subscriptionId: subscriptionId, after: sequence, limit: limit)
            // After the read: a deletion that committed before it raised the mark in its transaction.
            // A page of the whole log that starts right after the cursor shows nothing was deleted
            // there (the log only loses a prefix): no mark to read.
            if subscriptionId != nil || events.first?.sequence != sequence + 1 { try await checkCursor(sequence) }
            let now = ContinuousClock.now
            if let last = events.last, subscriptionId == nil { delivered.raise(to: last.sequence) }
            if !events.isEmpty || now >= deadline || Task.isCancelled { return events }
            // Nothing of this subscription up to `latest`: wait for the log to grow past it.
            scanned = max(scanned, latest)
            await feed.wait(after: scanned, timeout: deadline - now)
            if Task.isCancelled { return [] }
        }
    }
}

extension TrackingHub {
    /// Throws 410 when a reader's cursor (`after`, `Last-Event-ID`, a replay's start) is before the
    /// first event the log still holds: the events after it up to there were hidden by retention
    /// (and are deleted after). 0 (read from the start) reads from the first one still held. The
    /// mark is the store's, as committed (another instance's too, and never one that rolled back),
    /// read after the log: a cursor is never let past events that are gone. (A mark committing
    /// between the two reads refuses a page read just before it: the reader starts again at the
    /// first event kept, as it would at its next read.)
    func checkCursor(_ sequence: Int64) async throws {
        guard sequence > 0 else { return }
        let through = try await retention.marks().eventsThrough
        guard sequence < through else { return }
        var problem = ProblemDetails(status: .gone, detail: "events \(sequence + 1)…\(through) were deleted by retention; the log starts at \(through + 1)")
        problem.firstAvailableSequence = through + 1
        throw ProblemError(problem)
    }
}

/// A number that only goes up, shared across tasks.
final class HighWaterMark: Sendable {
    private let mark = Atomic<Int64>(0)

    var value: Int64 { mark.load(ordering: .relaxed) }

    func raise(to value: Int64) {
        var current = mark.load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = mark.compareExchange(expected: current, desired: value, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
