public import MapGeometry

/// What makes a stay (Core Location's `CLVisit`): consecutive fixes all within `radius` metres of
/// their centre for at least `minimumDuration` seconds. The visits subscription and the trips and
/// stops reads both follow it (``StayRun``).
public struct StayRule: Hashable, Sendable {
    /// Metres (geodesic) every fix of a stay lies within from the stay's centre.
    public var radius: Double
    /// Seconds (event time) from a stay's first fix to its last for it to count.
    public var minimumDuration: Double

    /// Metres by default.
    public static let defaultRadius = 100.0
    /// Seconds by default: 5 min.
    public static let defaultMinimumDuration = 300.0
    /// Metres `radius` may be: the local plane the run's hull lives in stays exact enough within it.
    public static let radii = 1.0...10_000
    /// Seconds `minimumDuration` may be: 0 to a week.
    public static let minimumDurations = 0.0...604_800

    public init(radius: Double = defaultRadius, minimumDuration: Double = defaultMinimumDuration) {
        self.radius = radius
        self.minimumDuration = minimumDuration
    }
}

extension StayRule {
    /// Throws at `radius` when it lies outside ``radii``.
    public static func check(radius: Double) throws(FieldError) {
        try check(radius, field: "radius", in: radii, unit: "metres")
    }

    /// Throws at `minimumDuration` when it lies outside ``minimumDurations``.
    public static func check(minimumDuration: Double) throws(FieldError) {
        try check(minimumDuration, field: "minimumDuration", in: minimumDurations, unit: "seconds")
    }

    private static func check(_ value: Double, field: String, in range: ClosedRange<Double>, unit: String) throws(FieldError) {
        guard value.isFinite, range.contains(value) else {
            throw FieldError(path: [field], message: "must be \(Int(range.lowerBound))…\(Int(range.upperBound)) \(unit)")
        }
    }
}
