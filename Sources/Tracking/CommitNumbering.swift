/// How a store numbered a commit's events and accepted fixes, against the numbers its plans
/// carry. A writer over a store several processes write per device (PostgreSQL) plans on numbers
/// of its own, provisional: another process's ingest may commit between its planning and its
/// commit, so the store numbers each rows statement from the tenant's counters as it commits (in
/// commit order, gap-free), and the plans take the store's numbers after. Each statement's
/// provisional numbers are contiguous, so one shift per statement maps them.
public struct CommitNumbering: Sendable, Equatable {
    /// Per rows statement, its provisional event sequences and the store's minus them.
    public private(set) var sequences: [Shift] = []
    /// Per rows statement, its provisional accepted-fix ordinals and the store's minus them.
    public private(set) var ordinals: [Shift] = []

    public struct Shift: Sendable, Equatable {
        public var provisional: ClosedRange<Int64>
        public var by: Int64
    }

    public init() {}

    /// Whether the plans' numbers are the store's (a store one process writes, or an exclusive transaction on a current state).
    public var isIdentity: Bool { sequences.allSatisfy { $0.by == 0 } && ordinals.allSatisfy { $0.by == 0 } }

    /// Records a statement that numbered `provisional` sequences from `last` down (its last is `last`).
    public mutating func numberedEvents(_ provisional: ClosedRange<Int64>, last: Int64) {
        sequences.append(Shift(provisional: provisional, by: last - provisional.upperBound))
    }

    /// Records a statement that numbered `provisional` ordinals from `last` down.
    public mutating func numberedOrdinals(_ provisional: ClosedRange<Int64>, last: Int64) {
        ordinals.append(Shift(provisional: provisional, by: last - provisional.upperBound))
    }

    public func sequence(_ provisional: Int64) -> Int64 { Self.map(provisional, sequences) }
    public func ordinal(_ provisional: Int64) -> Int64 { Self.map(provisional, ordinals) }

    private static func map(_ number: Int64, _ shifts: [Shift]) -> Int64 {
        shifts.first { $0.provisional.contains(number) }.map { number + $0.by } ?? number
    }
}

extension IngestPlan {
    /// Takes the store's numbers: every event's sequence, and the device's ordinal when the plan
    /// accepted a fix (otherwise it is the one the device had, which ``TrackingState/renumber(_:)``
    /// leaves to the plan that set it).
    public mutating func renumber(_ numbering: CommitNumbering) {
        guard !numbering.isIdentity else { return }
        for index in events.indices { events[index].sequence = numbering.sequence(events[index].sequence) }
        if results.contains(where: { $0.status == .accepted }) {
            device.lastAcceptedOrdinal = numbering.ordinal(device.lastAcceptedOrdinal)
            acceptedFixes = device.lastAcceptedOrdinal
        }
    }
}

extension TrackingState {
    /// Takes in the store's numbers of committed plans (``IngestPlan/renumber(_:)``), in their order.
    public mutating func renumber(_ plans: [IngestPlan]) {
        for plan in plans {
            if plan.results.contains(where: { $0.status == .accepted }) {
                devices[plan.deviceId] = plan.device
                acceptedFixes = max(acceptedFixes, plan.device.lastAcceptedOrdinal)
            }
            if let last = plan.events.last?.sequence { lastSequence = max(lastSequence, last) }
        }
    }
}
