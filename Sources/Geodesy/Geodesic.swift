public import MapGeometry
import CPROJ

/// Geodesics on an ellipsoid, after Karney (2013), through PROJ's `geodesic.h`.
///
/// The solver is an immutable table of series coefficients; it is safe to share across threads.
public struct Geodesic: Sendable {
    /// The distance and azimuths of the shortest path between two points.
    public struct Inverse: Hashable, Sendable {
        /// Metres along the ellipsoid.
        public var distance: Double
        /// Degrees clockwise from north at the start, −180…180.
        public var initialAzimuth: Double
        /// Degrees clockwise from north at the end (the direction of travel there), −180…180.
        public var finalAzimuth: Double
    }

    /// Where a geodesic ends.
    public struct Direct: Hashable, Sendable {
        /// The end point, longitude in −180…180.
        public var coordinate: Coordinate
        /// Degrees clockwise from north of the direction of travel at the end, −180…180.
        public var finalAzimuth: Double
    }

    // `geod_geodesic` holds only doubles; geod_init fills it and nothing writes it after.
    private nonisolated(unsafe) var solver = geod_geodesic()

    /// A solver for an ellipsoid.
    public init(_ ellipsoid: Ellipsoid) {
        geod_init(&solver, ellipsoid.semiMajorAxis, ellipsoid.flattening)
    }

    /// The WGS84 solver.
    public static let wgs84 = Geodesic(.wgs84)

    /// The shortest path from `from` to `to` (the inverse problem).
    public func inverse(from: Coordinate, to: Coordinate) -> Inverse {
        var distance = 0.0, azimuth1 = 0.0, azimuth2 = 0.0
        withUnsafePointer(to: solver) { g in
            geod_inverse(g, from.latitude, from.longitude, to.latitude, to.longitude, &distance, &azimuth1, &azimuth2)
        }
        return Inverse(distance: distance, initialAzimuth: azimuth1, finalAzimuth: azimuth2)
    }

    /// The end of the geodesic leaving `from` at `azimuth` degrees for `distance` metres
    /// (the direct problem; a negative distance goes backwards).
    public func direct(from: Coordinate, azimuth: Double, distance: Double) -> Direct {
        var latitude = 0.0, longitude = 0.0, azimuth2 = 0.0
        withUnsafePointer(to: solver) { g in
            geod_direct(g, from.latitude, from.longitude, azimuth, distance, &latitude, &longitude, &azimuth2)
        }
        return Direct(coordinate: Coordinate(latitude: latitude, longitude: longitude), finalAzimuth: azimuth2)
    }
}
