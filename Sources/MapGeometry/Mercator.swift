import Foundation

/// MapKit's Web-Mercator world: the one place where coordinates become map points and back.
///
/// The world is ``worldSize`` map points square, origin at the north-west corner, x east, y south:
/// `x = (λ + 180) / 360 · W`, `y = (½ − ln((1 + sin φ) / (1 − sin φ)) / 4π) · W`,
/// and back `φ = atan(sinh(π (1 − 2y / W)))`.
public enum Mercator {
    /// The world's width and height, 2^28 map points.
    public static let worldSize: Double = 268_435_456
    /// The latitude of the world's top edge, atan(sinh π) in degrees; beyond it latitudes clamp.
    public static let maxLatitude: Double = 85.051_128_779_806_6

    /// The map point of a coordinate (`MKMapPointForCoordinate`). Latitudes beyond
    /// ±``maxLatitude`` clamp to the world's edge; the longitude is not wrapped.
    public static func mapPoint(for coordinate: Coordinate) -> MapPoint {
        MapPoint(x: x(forLongitude: coordinate.longitude), y: y(forLatitude: coordinate.latitude))
    }

    /// The coordinate of a map point (`MKCoordinateForMapPoint`): y is clamped to the world,
    /// the longitude wrapped into −180…180.
    public static func coordinate(for point: MapPoint) -> Coordinate {
        Coordinate(latitude: latitude(forY: point.y), longitude: longitude(forX: point.x))
    }

    /// Map-point x of a longitude in degrees (not wrapped: 190° gives a point east of the world).
    public static func x(forLongitude longitude: Double) -> Double {
        (longitude + 180) / 360 * worldSize
    }

    /// Map-point y of a latitude in degrees, clamped to ±``maxLatitude``.
    public static func y(forLatitude latitude: Double) -> Double {
        let s = sin(clampLatitude(latitude) * .pi / 180)
        return (0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * worldSize
    }

    /// Longitude in degrees of a map-point x, wrapped into −180…180.
    public static func longitude(forX x: Double) -> Double {
        Coordinate.wrapLongitude(x / worldSize * 360 - 180)
    }

    /// Latitude in degrees of a map-point y, clamped to the world (0…2^28).
    public static func latitude(forY y: Double) -> Double {
        let clamped = min(max(y, 0), worldSize)
        return atan(sinh(.pi * (1 - 2 * clamped / worldSize))) * 180 / .pi
    }

    /// A latitude held within ±``maxLatitude``, the world's edges.
    public static func clampLatitude(_ latitude: Double) -> Double {
        min(max(latitude, -maxLatitude), maxLatitude)
    }

    /// x wrapped into 0..<2^28.
    public static func wrapX(_ x: Double) -> Double {
        if x >= 0 && x < worldSize { return x }
        let r = x.truncatingRemainder(dividingBy: worldSize)
        return r < 0 ? r + worldSize : r
    }

    /// Metres per map point along the parallel at a latitude (`MKMetersPerMapPointAtLatitude`),
    /// on the WGS84 ellipsoid: 2π · N(φ) cos φ / 2^28; ≈ 0.14929 at the equator.
    /// - Parameter latitude: degrees, clamped to ±``maxLatitude``.
    public static func metersPerMapPoint(atLatitude latitude: Double) -> Double {
        2 * .pi * Ellipsoid.wgs84.parallelRadius(atLatitude: clampLatitude(latitude)) / worldSize
    }
}
