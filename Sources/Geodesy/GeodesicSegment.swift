import Foundation
public import MapGeometry

/// The shortest geodesic between two points, as a segment: its ends bound it, so the nearest
/// point of the segment to a third point may be an end (the infinite geodesic through the two
/// points, its "great circle", can pass much closer).
public struct GeodesicSegment: Hashable, Sendable {
    public let start: Coordinate
    public let end: Coordinate
    /// Metres along the ellipsoid from `start` to `end`.
    public let length: Double
    /// Degrees clockwise from north at `start`, towards `end`.
    public let azimuth: Double

    public init(from start: Coordinate, to end: Coordinate) {
        let inverse = Geodesic.wgs84.inverse(from: start, to: end)
        self.start = start
        self.end = end
        length = inverse.distance
        azimuth = inverse.initialAzimuth
    }

    /// The point `s` metres along the geodesic from `start` (beyond the ends when `s` is outside
    /// 0…``length``), with the direction of travel there.
    public func position(at s: Double) -> Geodesic.Direct {
        Geodesic.wgs84.direct(from: start, azimuth: azimuth, distance: s)
    }

    /// The nearest point of the segment to `p` and its geodesic distance, metres.
    ///
    /// Any minimum of the distance over the segment is at an end or where the geodesic from `p`
    /// meets the line at a right angle (the foot). The foot is found as Karney (2013, §8) solves
    /// the interception problem: a right spherical triangle at the current guess X (hypotenuse
    /// `|pX|`, angle A at X between the line and the way to p) places the foot `atan(tan|pX| cos A)`
    /// further along; the ellipsoid's error of that step is of order f, so each step gains two
    /// to three digits and five to ten steps reach a micrometre. The answer is the nearer of the
    /// two ends and the foot when the foot lies on the segment.
    public func nearest(to p: Coordinate) -> (coordinate: Coordinate, distance: Double, along: Double) {
        let toStart = Geodesic.wgs84.inverse(from: p, to: start).distance
        let toEnd = Geodesic.wgs84.inverse(from: p, to: end).distance
        let nearerEnd = toStart <= toEnd ? (start, toStart, 0.0) : (end, toEnd, length)
        guard length > 0, let foot = foot(of: p, startingAt: nearerEnd.2),
              foot.2 > 0, foot.2 < length, foot.1 < nearerEnd.1 else { return nearerEnd }
        return foot
    }

    /// The geodesic distance from `p` to the segment, metres.
    public func distance(to p: Coordinate) -> Double {
        nearest(to: p).distance
    }

    /// Radius of the sphere the steps of ``nearest(to:)`` reckon on, metres (WGS84's mean radius).
    private static let stepRadius = 6_371_008.8
    private static let steps = 30
    private static let convergence = 1e-7

    /// Where the geodesic from `p` meets the line at a right angle, starting the search `s0` metres
    /// along; nil when the steps do not settle (an end is then the answer).
    private func foot(of p: Coordinate, startingAt s0: Double) -> (Coordinate, Double, Double)? {
        let radians = Double.pi / 180
        var s = s0
        for _ in 0..<Self.steps {
            let x = position(at: s)
            let toX = Geodesic.wgs84.inverse(from: p, to: x.coordinate)
            if toX.distance == 0 { return (x.coordinate, 0, s) }
            // The way from X back to p is the reverse of the final azimuth of p → X.
            let angle = (toX.finalAzimuth + 180 - x.finalAzimuth) * radians
            let c = toX.distance / Self.stepRadius
            let step = atan2(sin(c) * cos(angle), cos(c)) * Self.stepRadius
            s += step
            if abs(step) < Self.convergence {
                let foot = position(at: s).coordinate
                return (foot, Geodesic.wgs84.inverse(from: p, to: foot).distance, s)
            }
            // A foot beyond either end by more than the segment's length cannot be the nearest point.
            if s < -length - 1 || s > 2 * length + 1 { return nil }
        }
        return nil
    }
}
