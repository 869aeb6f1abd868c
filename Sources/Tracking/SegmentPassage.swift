public import Geodesy
public import MapGeometry

/// Where the geodesic between two fixes passes through a region that neither fix is inside: a
/// device driving through a small region between sparse fixes (issue 18, `detect: ["cross"]`).
///
/// The path is followed along the geodesic itself (PROJ's direct problem), not a chord. The
/// signed distance to the boundary changes by at most k metres per metre travelled (k = 1 for a
/// circle, whose distance is geodesic; a polygon's local plane says its own,
/// ``RegionShape/distanceRate(betweenLatitudes:_:)``), so a stretch whose ends lie d₁ and d₂
/// metres outside and L metres apart never comes closer than (d₁ + d₂ − kL) / 2: such stretches
/// are ruled out whole and the others halved. So nothing is missed between samples, however long
/// the segment, and the entry and exit are found to ``resolution``.
public struct SegmentPassage: Hashable, Sendable {
    /// Metres along the segment where it first crosses the boundary inwards.
    public var entry: Double
    /// Metres along the segment where it last crosses the boundary outwards.
    public var exit: Double
    /// The segment's length, metres.
    public var length: Double
    /// The points there.
    public var entryCoordinate: Coordinate
    public var exitCoordinate: Coordinate

    /// How closely the entry and exit are placed, metres.
    public static let resolution = 0.1

    /// The passage of the geodesic from `a` to `b` through `shape`, when both ends are outside and
    /// the path comes at least `depth` metres inside somewhere (the hysteresis a fix would need);
    /// nil otherwise.
    /// - Parameter endDistance: the signed distance at `b`, when the caller has it already.
    public static func through(_ shape: RegionShape, from a: Coordinate, to b: Coordinate, depth: Double, endDistance: Double? = nil) -> SegmentPassage? {
        // Most segments are ruled out whole before any geodesic is solved: by the bound below with
        // distances that cannot be larger than the ends' and a length that cannot be shorter.
        let length = GeodesicBounds.upper(a, b)
        let bulge = GeodesicBounds.latitudeReach(length / 2)  // no point of the path is further from both ends
        let (south, north) = (min(a.latitude, b.latitude), max(a.latitude, b.latitude))
        let rate = shape.distanceRate(betweenLatitudes: max(-90, south - bulge), min(90, north + bulge))
        let endAtLeast = endDistance ?? shape.signedDistanceLowerBound(to: b)
        guard (shape.signedDistanceLowerBound(to: a) + endAtLeast - rate * length) / 2 <= -max(depth, 0) else { return nil }
        let end = endDistance ?? shape.signedDistance(to: b)
        guard end > 0 else { return nil }
        let start = shape.signedDistance(to: a)
        guard start > 0 else { return nil }
        let path = Path(shape: shape, from: a, to: b)
        guard path.length > 0 else { return nil }
        guard let deep = path.firstReaching(-max(depth, 0), in: (0, start), (path.length, end)),
              let entry = path.firstReaching(0, in: (0, start), (deep, path.distance(at: deep))),
              let exit = path.lastReaching(0, in: (deep, path.distance(at: deep)), (path.length, end))
        else { return nil }
        return SegmentPassage(
            entry: entry, exit: exit, length: path.length,
            entryCoordinate: path.coordinate(at: entry), exitCoordinate: path.coordinate(at: exit))
    }

    /// The geodesic from one point to another, and the region's signed distance along it.
    private struct Path {
        let shape: RegionShape
        let origin: Coordinate
        let azimuth: Double
        let length: Double

        init(shape: RegionShape, from a: Coordinate, to b: Coordinate) {
            let inverse = Geodesic.wgs84.inverse(from: a, to: b)
            self.shape = shape
            origin = a
            azimuth = inverse.initialAzimuth
            length = inverse.distance
        }

        func coordinate(at s: Double) -> Coordinate {
            Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: s).coordinate
        }

        func distance(at s: Double) -> Double {
            shape.signedDistance(to: coordinate(at: s))
        }

        /// The least the signed distance can be between two places of the path.
        func lowerBound(_ low: (Double, Double), _ high: (Double, Double)) -> Double {
            let span = high.0 - low.0
            var rate = 1.0
            if case .circle = shape {} else {
                // The stretch's latitudes: its ends and middle (a geodesic bulges poleward a little; k has 1 % to spare).
                let latitudes = [low.0, (low.0 + high.0) / 2, high.0].map { coordinate(at: $0).latitude }
                rate = shape.distanceRate(betweenLatitudes: latitudes.min()!, latitudes.max()!)
            }
            return (low.1 + high.1 - rate * span) / 2
        }

        /// The first place between `low` and `high` (positions and signed distances) where the
        /// signed distance is at most `level`, to ``SegmentPassage/resolution``; nil if none.
        func firstReaching(_ level: Double, in low: (Double, Double), _ high: (Double, Double)) -> Double? {
            if low.1 <= level { return low.0 }
            guard lowerBound(low, high) <= level else { return nil }
            if high.0 - low.0 <= SegmentPassage.resolution { return high.1 <= level ? high.0 : nil }
            let middle = (low.0 + high.0) / 2
            let mid = (middle, distance(at: middle))
            return firstReaching(level, in: low, mid) ?? firstReaching(level, in: mid, high)
        }

        /// The last place between `low` and `high` where the signed distance is at most `level`.
        func lastReaching(_ level: Double, in low: (Double, Double), _ high: (Double, Double)) -> Double? {
            if high.1 <= level { return high.0 }
            guard lowerBound(low, high) <= level else { return nil }
            if high.0 - low.0 <= SegmentPassage.resolution { return low.1 <= level ? low.0 : nil }
            let middle = (low.0 + high.0) / 2
            let mid = (middle, distance(at: middle))
            return lastReaching(level, in: mid, high) ?? lastReaching(level, in: low, mid)
        }
    }
}
