import Foundation
import Storage
import Tracking
import Timeline

/// The server's side of tracking: the tracker, and the signal long polls and streams wait on.
struct TrackingHub: Sendable {
    let tracker: Tracker
    /// Advanced to the last event sequence after every commit that wrote events.
    let feed: SequenceSignal

    /// A hub on `database`, its state loaded, issuing UUIDv7 ids after the last one it stored.
    static func open(on database: MeridianDatabase) async throws -> TrackingHub {
        let store = SQLiteTrackingStore(database: database)
        let ids = UUIDv7Generator(after: try await store.lastIssuedID())
        let feed = SequenceSignal(latest: 0)
        let tracker = try Tracker(
            store: store,
            now: { Instant(secondsSince1970: Date().timeIntervalSince1970) },
            newID: { ids.next().description },
            committed: { feed.advance(to: $0) }
        )
        feed.advance(to: tracker.loadedLastSequence)
        return TrackingHub(tracker: tracker, feed: feed)
    }

    /// Events after `sequence` (of one subscription, or all); when there are none yet, waits up
    /// to `wait` for one and answers as soon as it is committed.
    func events(subscriptionId: String?, after sequence: Int64, limit: Int, wait: Duration) async throws -> [TrackingEvent] {
        let deadline = ContinuousClock.now + wait
        var scanned = sequence
        while true {
            let latest = feed.latest
            let events = try await tracker.store.events(subscriptionId: subscriptionId, after: sequence, limit: limit)
            let now = ContinuousClock.now
            if !events.isEmpty || now >= deadline || Task.isCancelled { return events }
            // Nothing of this subscription up to `latest`: wait for the log to grow past it.
            scanned = max(scanned, latest)
            await feed.wait(after: scanned, timeout: deadline - now)
            if Task.isCancelled { return [] }
        }
    }
}
