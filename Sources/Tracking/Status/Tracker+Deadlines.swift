public import Timeline

extension Tracker {
    /// Status deadline events committed in one transaction, at most.
    public static let deadlinesPerCommit = 500

    /// What one round of firing did.
    public struct Firing: Sendable {
        /// Deadline events committed.
        public var fired: Int
        /// The earliest deadline still pending, if any.
        public var next: Instant?
    }

    /// Fires every status deadline due by the server clock, in the order of their times, through
    /// the writer (as ingest commits: planned on the state every earlier write left, so a fix that
    /// moved a deadline is committed before or after, never during), each event committed with
    /// its deadline cleared, ``deadlinesPerCommit`` at a time. Over a store several processes
    /// write, the tenant's tracking lock and the reload it brings make a deadline another process
    /// fired already no longer due here: each fires once.
    public func fireDeadlines() async throws -> Firing {
        var fired = 0
        while true {
            let now = now()
            // A read first: most wakes find nothing due, and a write would take the lock for nothing.
            let next = try await writer.read { $0.nextStatusDeadline }
            guard let next, next <= now else { return Firing(fired: fired, next: next) }
            let count = try await writer.change { [newID] state -> (answer: Int, write: TrackingWrite?) in
                let plan = state.planDeadlines(upTo: now, limit: Self.deadlinesPerCommit, eventID: newID)
                return (plan.events.count, plan.events.isEmpty && plan.statuses.isEmpty ? nil : .deadlines(plan))
            }
            fired += count
        }
    }
}
