public import MapGeometry

/// Fleet status: `offline` after ``offlineAfter`` seconds without a fix and `online` at the next
/// one; `stopped` after ``stoppedAfter`` seconds below ``stoppedSpeed`` and `moving` when the
/// device is at or above it again. Either half may be off (nil); with both off it emits nothing,
/// as a region notifying neither entry nor exit. Deadlines count in event time, from fix
/// timestamps (``StatusEvaluation``).
public struct StatusRule: Hashable, Sendable {
    /// Seconds without a fix (from the latest fix's timestamp) before `offline`; nil: never.
    public var offlineAfter: Double?
    /// Seconds below ``stoppedSpeed`` (from the first slow fix's timestamp) before `stopped`; nil: never.
    public var stoppedAfter: Double?
    /// Metres per second below which a fix counts as stopped.
    public var stoppedSpeed: Double

    /// A walking pace: 1 m/s (3.6 km/h) separates a parked vehicle's GPS drift from driving.
    public static let defaultStoppedSpeed = 1.0

    public init(offlineAfter: Double? = nil, stoppedAfter: Double? = nil, stoppedSpeed: Double = defaultStoppedSpeed) {
        self.offlineAfter = offlineAfter
        self.stoppedAfter = stoppedAfter
        self.stoppedSpeed = stoppedSpeed
    }

    /// Seconds a delay may be: 1 s … 1 year.
    public static let delays: ClosedRange<Double> = 1...31_536_000
    /// Metres per second `stoppedSpeed` may be: 0 … 1 000.
    public static let speeds: ClosedRange<Double> = 0...1_000

    /// Throws at the first field out of range (the contract's bounds: every request it calls valid is).
    public func check() throws(FieldError) {
        if let offlineAfter { try FieldError.check(offlineAfter, field: "offlineAfter", in: Self.delays) }
        if let stoppedAfter { try FieldError.check(stoppedAfter, field: "stoppedAfter", in: Self.delays) }
        try FieldError.check(stoppedSpeed, field: "stoppedSpeed", in: Self.speeds)
    }
}
