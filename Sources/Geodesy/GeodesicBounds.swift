import Foundation
public import MapGeometry

/// Bounds of the WGS84 geodesic distance from great circles on two spheres, cheap enough to rule
/// things out before the geodesic is solved.
///
/// On the ellipsoid a path's length element is `ds² = M(φ)² dφ² + N(φ)² cos²φ dλ²`, with
/// `b²/a ≤ M(φ) ≤ a²/b` and `a ≤ N(φ) ≤ a²/b`. A sphere of radius R, with the geodetic latitude
/// and longitude as its own, has `ds² = R² (dφ² + cos²φ dλ²)`: for R = b²/a never longer than the
/// ellipsoid's, for R = a²/b never shorter. So the great-circle distance on the first is at most
/// the geodesic one, and on the second at least. Each bound gives up ``slack`` for rounding.
public enum GeodesicBounds {
    /// b²/a of WGS84, metres (≈ 6 335 439): the smallest radius of curvature.
    public static let shortRadius: Double = {
        let wgs84 = Ellipsoid.wgs84
        return wgs84.semiMajorAxis * (1 - wgs84.flattening) * (1 - wgs84.flattening)
    }()
    /// a²/b of WGS84, metres (≈ 6 399 594): the largest.
    public static let longRadius: Double = {
        let wgs84 = Ellipsoid.wgs84
        return wgs84.semiMajorAxis / (1 - wgs84.flattening)
    }()
    /// Metres a bound gives up for rounding (`asin` near 1 resolves ~0.1 m).
    public static let slack = 1.0

    /// At most the geodesic distance between `a` and `b`.
    public static func lower(_ a: Coordinate, _ b: Coordinate) -> Double {
        max(0, angle(a, b) * shortRadius - slack)
    }

    /// At least the geodesic distance between `a` and `b`.
    public static func upper(_ a: Coordinate, _ b: Coordinate) -> Double {
        angle(a, b) * longRadius + slack
    }

    /// At least how many degrees of latitude a path of `metres` can span: along a meridian, where a
    /// degree is shortest (b²/a × π/180 ≈ 110 574 m at the equator).
    public static func latitudeReach(_ metres: Double) -> Double {
        metres / (shortRadius * Double.pi / 180)
    }

    /// The central angle between two points on a sphere (haversine), radians.
    private static func angle(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radians = Double.pi / 180
        let (φ1, φ2) = (a.latitude * radians, b.latitude * radians)
        let (dφ, dλ) = (φ2 - φ1, (b.longitude - a.longitude) * radians)
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * asin(min(1, h.squareRoot()))
    }
}
