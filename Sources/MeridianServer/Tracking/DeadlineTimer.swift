import Foundation
import Logging
import Synchronization
import Timeline
import Tracking

/// Fires a tenant's status deadlines when the server clock reaches them (``Tracker/fireDeadlines()``).
///
/// It sleeps until the earliest deadline the tracker's state holds (a scan of the state when it
/// wakes, not a query), woken earlier when a commit sets an earlier one (``noticed(_:)``), and at
/// least every ``recheck``: another instance sharing the database (PostgreSQL) may have set
/// deadlines this one's state learns of only by reading, and a read that finds nothing due costs
/// one revision query. The deadlines are rows, so a restart reloads them and fires those that fell
/// due while it was down, with their own `occurredAt`.
final class DeadlineTimer: Sendable {
    /// How often the state is read even with no deadline nearer: another instance's deadlines.
    static let recheck: Duration = .seconds(1)

    private let wake = SequenceSignal(latest: 0)
    /// The deadline the timer sleeps until (nil: none known).
    private let scheduled = Mutex<Instant?>(nil)
    private let logger = Logger(label: "meridian.deadlines")

    /// Told of a deadline a commit set: wakes the timer if it sleeps past it.
    func noticed(_ deadline: Instant) {
        let earlier = scheduled.withLock { scheduled in
            guard scheduled.map({ deadline < $0 }) ?? true else { return false }
            scheduled = deadline
            return true
        }
        if earlier { wake.advance(to: wake.latest + 1) }
    }

    /// Fires deadlines as they fall due until the task is cancelled; `fired` is told each round's count.
    func run(_ tracker: Tracker, fired: @escaping @Sendable (Int) -> Void) async {
        while !Task.isCancelled {
            let seen = wake.latest
            var pause = Self.recheck
            do {
                let firing = try await tracker.fireDeadlines()
                if firing.fired > 0 { fired(firing.fired) }
                scheduled.withLock { $0 = firing.next }
                if let next = firing.next {
                    let until = Duration.microseconds(max(0, next.microseconds - tracker.currentTime.microseconds))
                    pause = min(pause, until)
                }
            } catch {
                // The store is the truth: the next round reads it again.
                logger.warning("firing status deadlines failed; retrying", metadata: ["error": "\(error)"])
            }
            await wake.wait(after: seen, timeout: pause)
        }
    }
}
