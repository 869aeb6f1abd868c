import Foundation
import Geodesy
import MapGeometry

/// Lower bounds of the WGS84 geodesic distance, cheap enough to rank cells and points before the
/// exact distance is measured.
///
/// On the ellipsoid a path's length element is `ds² = M(φ)² dφ² + N(φ)² cos²φ dλ²` with
/// `M(φ) ≥ M(0) = b²/a` and `N(φ) ≥ a`. A sphere of radius `R = b²/a`, with the geodetic latitude
/// and longitude as its own, has `ds² = R² (dφ² + cos²φ dλ²)`: never longer, so its great-circle
/// distance is never more than the geodesic one. Each bound gives up ``slack`` metres for rounding.
enum DistanceBound {
    /// `b²/a` of WGS84, metres (≈ 6 335 439).
    static let radius = GeodesicBounds.shortRadius
    /// Metres a bound gives up for rounding.
    static let slack = GeodesicBounds.slack
    static let radiansPerDegree = Double.pi / 180

    /// A query point, its trigonometry worked out once.
    struct Origin {
        let latitude: Double, longitude: Double
        let sinLatitude: Double, cosLatitude: Double

        init(_ coordinate: Coordinate) {
            latitude = coordinate.latitude
            longitude = coordinate.longitude
            sinLatitude = sin(latitude * radiansPerDegree)
            cosLatitude = cos(latitude * radiansPerDegree)
        }

        /// At most the geodesic distance to `(latitude, longitude)` (haversine on the sphere).
        func bound(latitude: Double, longitude: Double) -> Double {
            let dLatitude = (latitude - self.latitude) * radiansPerDegree
            let dLongitude = (longitude - self.longitude) * radiansPerDegree
            let a = sin(dLatitude / 2), b = sin(dLongitude / 2)
            let h = a * a + cosLatitude * cos(latitude * radiansPerDegree) * b * b
            return max(0, 2 * asin(min(1, h.squareRoot())) * radius - slack)
        }

        /// At most the geodesic distance to any point of the box (degrees; `east - west` may reach
        /// 360). Inside its longitudes the nearest point is straight north or south; outside, on the
        /// nearer edge meridian (along a parallel, the distance grows with the longitude difference),
        /// where `cos d = sin φq sin φ + cos φq cos φ cos Δλ = C cos(φ − φ*)` peaks at φ* or at an end.
        func bound(south: Double, north: Double, west: Double, east: Double) -> Double {
            let width = east - west
            var offset = (longitude - west).truncatingRemainder(dividingBy: 360)
            if offset < 0 { offset += 360 }
            if width >= 360 || offset <= width {
                if latitude >= south && latitude <= north { return 0 }
                let degrees = latitude < south ? south - latitude : latitude - north
                return max(0, degrees * radiansPerDegree * radius - slack)
            }
            let dLongitude = min(offset - width, 360 - offset) * radiansPerDegree
            let a = sinLatitude, b = cosLatitude * cos(dLongitude)
            let peak = atan2(a, b)
            let low = south * radiansPerDegree, high = north * radiansPerDegree
            let cosine = (low...high).contains(peak)
                ? (a * a + b * b).squareRoot()
                : max(a * sin(low) + b * cos(low), a * sin(high) + b * cos(high))
            return max(0, acos(min(1, max(-1, cosine))) * radius - slack)
        }
    }
}
