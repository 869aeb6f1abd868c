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
            let shells = polygons.compactMap(\.first).filter { !$0.isEmpty }
            let latitudes = shells.flatMap { $0.map(\.latitude) }
            let (west, east) = Self.longitudeCover(shells.map { ($0.map(\.longitude).min() ?? 0, $0.map(\.longitude).max() ?? 0) })
            return BoundingBox(west: west, south: latitudes.min() ?? 0, east: east, north: latitudes.max() ?? 0)
        }
    }

    /// The shortest longitude range holding every `(west, east)` interval, wrapping at 180° when that
    /// is shorter: a MultiPolygon split at the antimeridian gets a box across it (west > east), not
    /// one around the whole world. The range skips the widest gap between the intervals.
    static func longitudeCover(_ intervals: [(Double, Double)]) -> (west: Double, east: Double) {
        let sorted = intervals.sorted { $0.0 < $1.0 }
        guard let first = sorted.first else { return (0, 0) }
        // Merge overlapping intervals, then find the widest gap between neighbours.
        var merged = [first]
        for interval in sorted.dropFirst() {
            if interval.0 <= merged[merged.count - 1].1 { merged[merged.count - 1].1 = max(merged[merged.count - 1].1, interval.1) } else { merged.append(interval) }
        }
        let wrapGap = merged[0].0 + 360 - merged[merged.count - 1].1
        var widest = (gap: wrapGap, after: merged.count - 1)
        for index in 0..<(merged.count - 1) where merged[index + 1].0 - merged[index].1 > widest.gap {
            widest = (merged[index + 1].0 - merged[index].1, index)
        }
        if widest.after == merged.count - 1 { return (merged[0].0, merged[merged.count - 1].1) }
        return (merged[widest.after + 1].0, merged[widest.after].1)
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
