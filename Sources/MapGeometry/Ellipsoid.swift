import Foundation

/// An ellipsoid of revolution: semi-major axis and flattening, with its radii of curvature.
public struct Ellipsoid: Hashable, Sendable {
    /// Equatorial radius in metres.
    public let semiMajorAxis: Double
    /// Flattening, (a − b) / a.
    public let flattening: Double

    /// An ellipsoid from its semi-major axis (metres) and flattening.
    public init(semiMajorAxis: Double, flattening: Double) {
        self.semiMajorAxis = semiMajorAxis
        self.flattening = flattening
    }

    /// WGS84: a = 6 378 137 m, f = 1 / 298.257223563.
    public static let wgs84 = Ellipsoid(semiMajorAxis: 6_378_137, flattening: 1 / 298.257_223_563)

    /// First eccentricity squared, e² = f (2 − f).
    public var eccentricitySquared: Double { flattening * (2 - flattening) }

    /// Meridional radius of curvature M(φ) in metres: metres per radian of latitude.
    /// - Parameter latitude: degrees.
    public func meridionalRadius(atLatitude latitude: Double) -> Double {
        let s = sin(latitude * .pi / 180)
        let w = 1 - eccentricitySquared * s * s
        return semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot())
    }

    /// Prime-vertical radius of curvature N(φ) in metres.
    /// - Parameter latitude: degrees.
    public func primeVerticalRadius(atLatitude latitude: Double) -> Double {
        let s = sin(latitude * .pi / 180)
        return semiMajorAxis / (1 - eccentricitySquared * s * s).squareRoot()
    }

    /// Radius of the parallel, N(φ)·cos φ, in metres: metres per radian of longitude.
    /// - Parameter latitude: degrees.
    public func parallelRadius(atLatitude latitude: Double) -> Double {
        primeVerticalRadius(atLatitude: latitude) * cos(latitude * .pi / 180)
    }
}
