public import Geodesy
public import MapGeometry

/// A monitored area: a geodesic circle, a polygon in longitude/latitude, or a corridor along a line.
public enum RegionShape: Hashable, Sendable {
    case circle(center: Coordinate, radius: Double)
    case polygon(PolygonShape)
    case corridor(CorridorShape)

    /// The smallest radius a circle may have (Core Location's practical minimum).
    public static let minimumRadius = 10.0
    /// The largest: 1 000 km, well short of a hemisphere, where "inside" stops meaning much.
    public static let maximumRadius = 1_000_000.0

    /// Metres from the boundary: negative inside, positive outside, 0 on it.
    public func signedDistance(to coordinate: Coordinate) -> Double {
        switch self {
        case .circle(let center, let radius):
            return Geodesic.wgs84.inverse(from: center, to: coordinate).distance - radius
        case .polygon(let polygon):
            return polygon.signedDistance(to: coordinate)
        case .corridor(let corridor):
            return corridor.signedDistance(to: coordinate)
        }
    }

    /// At most ``signedDistance(to:)``, cheaply: for a circle from the great-circle distance on the
    /// sphere no geodesic is shorter than (``GeodesicBounds``); the others' own distance.
    public func signedDistanceLowerBound(to coordinate: Coordinate) -> Double {
        if case .circle(let center, let radius) = self { return GeodesicBounds.lower(center, coordinate) - radius }
        return signedDistance(to: coordinate)
    }

    /// At most how many metres ``signedDistance(to:)`` changes per metre travelled between these
    /// latitudes: 1 for a circle (its distance is geodesic), more for a polygon's local plane.
    public func distanceRate(betweenLatitudes a: Double, _ b: Double) -> Double {
        switch self {
        case .circle: return 1
        // Geodesic, to a point the plane picks on a nearby segment: a hair over 1.
        case .corridor: return 1.05
        case .polygon(let polygon): return polygon.distanceRate(betweenLatitudes: a, b)
        }
    }

    /// A box holding every point of the region (a circle's, from geodesics to its four sides).
    public var bounds: BoundingBox {
        switch self {
        case .circle(let center, let radius):
            let reach = radius * 1.001 + 1  // a hair wider than the true extent
            // A circle holding a pole covers every longitude up to it.
            let toNorthPole = Geodesic.wgs84.inverse(from: center, to: Coordinate(latitude: 90, longitude: center.longitude)).distance
            let toSouthPole = Geodesic.wgs84.inverse(from: center, to: Coordinate(latitude: -90, longitude: center.longitude)).distance
            let north = reach >= toNorthPole ? 90 : Geodesic.wgs84.direct(from: center, azimuth: 0, distance: reach).coordinate.latitude
            let south = reach >= toSouthPole ? -90 : Geodesic.wgs84.direct(from: center, azimuth: 180, distance: reach).coordinate.latitude
            // The widest longitude of a small circle lies a little poleward of its centre; the
            // east point at the latitude of the pole-side edge bounds it from outside.
            let widest = abs(north) > abs(south) ? north : south
            let parallel = Ellipsoid.wgs84.parallelRadius(atLatitude: widest)
            guard abs(north) < 90, abs(south) < 90, parallel > reach else { return BoundingBox(west: -180, south: south, east: 180, north: north) }
            let halfWidth = min(180, reach / parallel * 180 / .pi * 1.001)
            return BoundingBox(
                west: Coordinate.wrapLongitude(center.longitude - halfWidth), south: south,
                east: Coordinate.wrapLongitude(center.longitude + halfWidth), north: north
            )
        case .polygon(let polygon):
            return polygon.bounds
        case .corridor(let corridor):
            return corridor.bounds
        }
    }
}

/// A polygon prepared for distances: its rings in a local plane in metres. Inside is what the
/// even-odd rule puts inside the rings (SVG's `evenodd` fill), a ring closing itself: for a valid
/// polygon that is the polygon; rings that cross or holes outside the exterior still say where
/// inside is, and rings that enclose no area have no inside (the region is never entered).
///
/// The plane is equirectangular about the polygon's bounding-box centre, scaled by the WGS84
/// radii of curvature there; over a region tens of kilometres across its distances are within a
/// fraction of a percent of geodesic ones, which is what hysteresis in metres needs.
public struct PolygonShape: Hashable, Sendable {
    public let polygon: GeoPolygon
    public let bounds: BoundingBox
    private let origin: Coordinate
    private let metresPerDegree: (x: Double, y: Double)
    private let rings: [[(x: Double, y: Double)]]

    /// Positions a ring must hold (a triangle and its closing position, as GeoJSON's linear rings).
    public static let minimumRingPositions = 4
    /// The most positions a polygon may hold in all its rings together, as a corridor's line
    /// (``CorridorShape/vertexCounts``): each distance visits every edge, and crossing detection
    /// (``SegmentPassage``) takes tens of distances per fix, so this bounds the work per fix.
    public static let maximumPositions = 10_000

    /// Prepares `polygon`; nil when a ring is empty.
    public init?(_ polygon: GeoPolygon) {
        guard !polygon.exterior.isEmpty, !polygon.holes.contains(where: \.isEmpty) else { return nil }
        self.polygon = polygon
        let all = ([polygon.exterior] + polygon.holes).joined()
        let latitudes = all.map(\.latitude), longitudes = all.map(\.longitude)
        bounds = BoundingBox(west: longitudes.min()!, south: latitudes.min()!, east: longitudes.max()!, north: latitudes.max()!)
        origin = Coordinate(latitude: (bounds.south + bounds.north) / 2, longitude: (bounds.west + bounds.east) / 2)
        let radians = Double.pi / 180
        metresPerDegree = (
            Ellipsoid.wgs84.parallelRadius(atLatitude: origin.latitude) * radians,
            Ellipsoid.wgs84.meridionalRadius(atLatitude: origin.latitude) * radians
        )
        let (origin, scale) = (origin, metresPerDegree)
        rings = ([polygon.exterior] + polygon.holes).map { ring in
            ring.map { Self.project($0, origin: origin, scale: scale) }
        }
    }

    public static func == (lhs: PolygonShape, rhs: PolygonShape) -> Bool { lhs.polygon == rhs.polygon }
    public func hash(into hasher: inout Hasher) { hasher.combine(polygon) }

    /// At most how many metres ``signedDistance(to:)`` changes per metre travelled between these
    /// latitudes: the plane's scales at its origin against the ellipsoid's there (1 % to spare).
    public func distanceRate(betweenLatitudes a: Double, _ b: Double) -> Double {
        let poleward = min(max(abs(a), abs(b)), 89.9), equatorward = (a < 0) != (b < 0) ? 0 : min(abs(a), abs(b))
        let radians = Double.pi / 180
        let x = metresPerDegree.x / (Ellipsoid.wgs84.parallelRadius(atLatitude: poleward) * radians)
        let y = metresPerDegree.y / (Ellipsoid.wgs84.meridionalRadius(atLatitude: equatorward) * radians)
        return max(1, x, y) * 1.01
    }

    /// Metres from the boundary: negative inside (even-odd over all rings), positive outside.
    public func signedDistance(to coordinate: Coordinate) -> Double {
        let p = Self.project(coordinate, origin: origin, scale: metresPerDegree)
        var inside = false
        var nearest = Double.infinity
        for ring in rings {
            var previous = ring[ring.count - 1]
            for point in ring {
                if (point.y > p.y) != (previous.y > p.y),
                   p.x < (previous.x - point.x) * (p.y - point.y) / (previous.y - point.y) + point.x {
                    inside.toggle()
                }
                nearest = min(nearest, Self.distance(from: p, toSegment: previous, point))
                previous = point
            }
        }
        return inside ? -nearest : nearest
    }

    private static func project(_ coordinate: Coordinate, origin: Coordinate, scale: (x: Double, y: Double)) -> (x: Double, y: Double) {
        var longitude = coordinate.longitude - origin.longitude
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return (longitude * scale.x, (coordinate.latitude - origin.latitude) * scale.y)
    }

    private static func distance(from p: (x: Double, y: Double), toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared == 0 ? 0 : max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared))
        let (ex, ey) = (a.x + t * dx - p.x, a.y + t * dy - p.y)
        return (ex * ex + ey * ey).squareRoot()
    }
}
