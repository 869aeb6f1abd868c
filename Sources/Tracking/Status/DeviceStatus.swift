public import Timeline

/// Where one status subscription stands with one device: what it last announced and the
/// deadlines pending (event time). The store keeps one row of it per subscription and device,
/// written in the transaction that changed it (the deadlines are those rows' columns), except an
/// `offline` deadline that only followed the device's last fix: loading derives it (``followsLastFix``).
public struct DeviceStatus: Hashable, Sendable {
    /// Whether `offline` was emitted and no fix came since.
    public var offline: Bool
    /// Whether `stopped` was emitted and no fast fix came since.
    public var stopped: Bool
    /// When `offline` is due: the latest fix's timestamp + `offlineAfter`; nil when none is pending.
    public var offlineAt: Instant?
    /// When `stopped` is due: the first slow fix's timestamp + `stoppedAfter`; nil when none is pending.
    public var stoppedAt: Instant?
    /// Whether ``offlineAt`` is the device's latest accepted fix + `offlineAfter`: the subscription
    /// evaluated that fix. The store then keeps the row as it was when only the deadline moved, and
    /// loading derives the deadline from the device's stored last fix; a fix the subscription does
    /// not evaluate (the device outside its groups, a skip rule) writes the deadline as it stands.
    public var followsLastFix: Bool

    public init(offline: Bool = false, stopped: Bool = false, offlineAt: Instant? = nil, stoppedAt: Instant? = nil, followsLastFix: Bool = false) {
        self.offline = offline
        self.stopped = stopped
        self.offlineAt = offlineAt
        self.stoppedAt = stoppedAt
        self.followsLastFix = followsLastFix
    }

    /// Whether this status differs from `stored` only in an `offline` deadline that follows the
    /// device's last fix in both: the store's row still says the same (ingest leaves it unwritten).
    func differsOnlyInDerivedDeadline(from stored: DeviceStatus) -> Bool {
        followsLastFix && stored.followsLastFix && offlineAt != nil && stored.offlineAt != nil
            && (offline, stopped, stoppedAt) == (stored.offline, stored.stopped, stored.stoppedAt)
    }

    /// The earlier pending deadline, if any.
    public var nextDeadline: Instant? {
        switch (offlineAt, stoppedAt) {
        case let (a?, b?): min(a, b)
        case let (a, b): a ?? b
        }
    }
}
