public import MapGeometry

/// A literal geometry of a spatial predicate, planar in longitude/latitude as GeoJSON says: a
/// point, a polygon or multipolygon (rings of `[longitude, latitude]`, first ring the shell, the
/// others holes), or a bbox (one that crosses the antimeridian when west > east).
public enum FilterGeometry: Hashable, Sendable {
    case point(Coordinate)
    /// Polygons, each a list of closed rings.
    case polygons([[[Coordinate]]])
    case bbox(BoundingBox)

    /// Where a point lies relative to this geometry.
    public enum Location: Hashable, Sendable { case interior, boundary, exterior }

    /// Whether `point` is inside, on the boundary of, or outside this geometry.
    public func locate(_ point: Coordinate) -> Location {
        switch self {
        case .point(let other):
            return other == point ? .interior : .exterior
        case .bbox(let box):
            return Self.locate(point, in: box)
        case .polygons(let polygons):
            var location = Location.exterior
            for rings in polygons {
                switch Self.locate(point, inPolygon: rings) {
                case .interior: return .interior
                case .boundary: location = .boundary
                case .exterior: continue
                }
            }
            return location
        }
    }

    /// The box around the geometry (for a query's first cut), west > east when it crosses 180°.
    public var bounds: BoundingBox {
        switch self {
        case .point(let point):
            return BoundingBox(west: point.longitude, south: point.latitude, east: point.longitude, north: point.latitude)
        case .bbox(let box):
            return box
        case .polygons(let polygons):
            let points = polygons.flatMap { $0.first ?? [] }
            return BoundingBox(
                west: points.map(\.longitude).min() ?? 0, south: points.map(\.latitude).min() ?? 0,
                east: points.map(\.longitude).max() ?? 0, north: points.map(\.latitude).max() ?? 0)
        }
    }

    private static func locate(_ p: Coordinate, in box: BoundingBox) -> Location {
        guard box.contains(p) else { return .exterior }
        let (x, y) = (p.longitude, p.latitude)
        let onEdge = y == box.south || y == box.north || x == box.west || x == box.east
        return onEdge ? .boundary : .interior
    }

    /// Even-odd crossing test over every ring (holes included), with points on an edge as boundary.
    private static func locate(_ p: Coordinate, inPolygon rings: [[Coordinate]]) -> Location {
        var inside = false
        for ring in rings where ring.count >= 2 {
            for index in 0..<(ring.count - 1) {
                let (a, b) = (ring[index], ring[index + 1])
                if onSegment(p, a, b) { return .boundary }
                // Half-open in y, so a vertex is counted once.
                if (a.latitude > p.latitude) != (b.latitude > p.latitude) {
                    let x = a.longitude + (p.latitude - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude)
                    if p.longitude < x { inside.toggle() }
                }
            }
        }
        return inside ? .interior : .exterior
    }

    private static func onSegment(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Bool {
        let cross = (b.longitude - a.longitude) * (p.latitude - a.latitude) - (b.latitude - a.latitude) * (p.longitude - a.longitude)
        guard cross == 0 else { return false }
        return p.longitude >= min(a.longitude, b.longitude) && p.longitude <= max(a.longitude, b.longitude)
            && p.latitude >= min(a.latitude, b.latitude) && p.latitude <= max(a.latitude, b.latitude)
    }
}
