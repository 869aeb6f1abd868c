public import MapGeometry
public import Timeline

/// A stay found in a device's stored fixes (`GET /v1/devices/{deviceId}/stops`).
public struct Stop: Hashable, Sendable {
    /// Its first fix's time.
    public var arrival: Instant
    /// Its last fix's time; nil while it goes on (it holds the last fix of the range read).
    public var departure: Instant?
    /// The accuracy-weighted mean of its fixes (``StayRun/centre``).
    public var centre: Coordinate
    /// Metres: √(1/Σ 1/accuracy²).
    public var horizontalAccuracy: Double
    /// Seconds from its first fix to its last (so far, when it goes on).
    public var duration: Double
    public var fixCount: Int

    init(_ run: StayRun, ended: Bool) {
        arrival = run.first
        departure = ended ? run.last : nil
        centre = run.centre
        horizontalAccuracy = run.horizontalAccuracy
        duration = run.duration
        fixCount = run.count
    }
}

/// The movement between two stops (`GET /v1/devices/{deviceId}/trips`): from the first stop's
/// centre at its departure, through the fixes between the stops, to the second stop's centre at
/// its arrival.
public struct Trip: Hashable, Sendable {
    /// The first stop's departure (its last fix's time).
    public var start: Instant
    /// The second stop's arrival (its first fix's time).
    public var end: Instant
    /// The first stop's centre.
    public var startCentre: Coordinate
    /// The second stop's centre.
    public var endCentre: Coordinate
    /// Metres: the sum of the geodesic (WGS84) segments of the path.
    public var distance: Double
    /// Seconds from ``start`` to ``end``.
    public var duration: Double { end.seconds(since: start) }
    /// Metres per second: distance over duration.
    public var averageSpeed: Double { duration > 0 ? distance / duration : 0 }
    /// Metres per second: the largest of the path's points after the first: each fix's reported
    /// `speed`, or, where it reports none, its segment's length over its time (the end stands for
    /// the second stop's first fix).
    public var maximumSpeed: Double
    /// The fixes between the stops.
    public var fixCount: Int
    /// The first stop's arrival: a page that starts there finds this trip first.
    public var startStopArrival: Instant
}
