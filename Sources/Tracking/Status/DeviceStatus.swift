public import Timeline

/// Where one status subscription stands with one device: what it last announced and the
/// deadlines pending (event time). The store keeps one row of it per subscription and device,
/// written in the transaction that changed it (the deadlines are those rows' columns).
public struct DeviceStatus: Hashable, Sendable {
    /// Whether `offline` was emitted and no fix came since.
    public var offline: Bool
    /// Whether `stopped` was emitted and no fast fix came since.
    public var stopped: Bool
    /// When `offline` is due: the latest fix's timestamp + `offlineAfter`; nil when none is pending.
    public var offlineAt: Instant?
    /// When `stopped` is due: the first slow fix's timestamp + `stoppedAfter`; nil when none is pending.
    public var stoppedAt: Instant?

    public init(offline: Bool = false, stopped: Bool = false, offlineAt: Instant? = nil, stoppedAt: Instant? = nil) {
        self.offline = offline
        self.stopped = stopped
        self.offlineAt = offlineAt
        self.stoppedAt = stoppedAt
    }

    /// The earlier pending deadline, if any.
    public var nextDeadline: Instant? {
        switch (offlineAt, stoppedAt) {
        case let (a?, b?): min(a, b)
        case let (a, b): a ?? b
        }
    }
}
