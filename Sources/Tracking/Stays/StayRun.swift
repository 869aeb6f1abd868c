import Foundation
import Geodesy
public import MapGeometry
public import Timeline

/// A run of consecutive fixes all within a radius of their centre: a stay once it lasts long
/// enough (``StayRule``). It keeps what decides whether the next fix joins it in bounded memory:
/// the accuracy-weighted sums of the fixes' coordinates and their convex hull (``StayHull``).
///
/// The rule, in full:
/// - A fix's weight is 1/a², a its `horizontalAccuracy` in metres (below 1 m counted as 1 m).
/// - The centre is the weighted mean of the fixes' latitudes and of their longitudes unwrapped
///   around the run's first fix (within 180° of it: a run may straddle the antimeridian); its
///   accuracy is √(1/Σ weights).
/// - A fix joins the run when every fix of the run and the fix itself lie within `radius` metres
///   (geodesic, WGS84) of the centre of all of them together; otherwise the run ends with the
///   fix before and the fix starts a new run. Fixes are taken in timestamp order.
/// - A run is a stay when its last fix is at least `minimumDuration` seconds after its first.
public struct StayRun: Hashable, Sendable {
    /// The first fix's time (a stay's arrival).
    public private(set) var first: Instant
    /// The last fix's time (a stay's departure once it has ended).
    public private(set) var last: Instant
    /// How many fixes it holds.
    public private(set) var count: Int
    /// Σ weights (1/m²).
    public private(set) var weight: Double
    /// Σ weight × (latitude − the first fix's), degrees.
    public private(set) var latitudeMoment: Double
    /// Σ weight × (unwrapped longitude − the first fix's), degrees.
    public private(set) var longitudeMoment: Double
    public private(set) var hull: StayHull
    /// Whether a subscription has announced it (`visitArrival`).
    public var arrived: Bool

    /// A run of `fix` alone.
    public init(_ fix: LocationFix) {
        let weight = Self.weight(fix.horizontalAccuracy)
        self.init(first: fix.timestamp, last: fix.timestamp, count: 1, weight: weight, latitudeMoment: 0, longitudeMoment: 0,
                  hull: StayHull(origin: fix.coordinate, vertices: [fix.coordinate]), arrived: false)
    }

    /// A run as stored.
    public init(first: Instant, last: Instant, count: Int, weight: Double, latitudeMoment: Double, longitudeMoment: Double, hull: StayHull, arrived: Bool) {
        (self.first, self.last, self.count, self.weight) = (first, last, count, weight)
        (self.latitudeMoment, self.longitudeMoment, self.hull, self.arrived) = (latitudeMoment, longitudeMoment, hull, arrived)
    }

    /// A fix's weight: 1/a², accuracies below 1 m counted as 1 m.
    public static func weight(_ accuracy: Double) -> Double {
        let a = max(accuracy, 1)
        return 1 / (a * a)
    }

    /// The weighted mean of its fixes' positions.
    public var centre: Coordinate {
        let origin = hull.origin
        return Coordinate(
            latitude: origin.latitude + latitudeMoment / weight,
            longitude: Coordinate.wrapLongitude(origin.longitude + longitudeMoment / weight))
    }

    /// The centre's accuracy, metres: √(1/Σ weights).
    public var horizontalAccuracy: Double { (1 / weight).squareRoot() }

    /// Seconds from its first fix to its last.
    public var duration: Double { last.seconds(since: first) }

    /// Whether it lasts long enough to be a stay by `rule`.
    public func isStay(_ rule: StayRule) -> Bool { duration >= rule.minimumDuration }

    /// The run with `fix` (later than its last) added, or nil when some fix would then lie more
    /// than `radius` metres from the centre (the run ends before `fix`).
    public func adding(_ fix: LocationFix, radius: Double) -> StayRun? {
        let w = Self.weight(fix.horizontalAccuracy)
        var next = self
        next.weight += w
        next.latitudeMoment += w * (fix.coordinate.latitude - hull.origin.latitude)
        next.longitudeMoment += w * (hull.unwrap(fix.coordinate.longitude) - hull.origin.longitude)
        next.hull = hull.adding(fix.coordinate)
        let centre = next.centre
        for vertex in next.hull.vertices where Geodesic.wgs84.inverse(from: centre, to: vertex).distance > radius { return nil }
        next.count += 1
        next.last = fix.timestamp
        return next
    }
}
