public import MapGeometry
import Geodesy

/// A geometry of a spatial predicate, planar in longitude/latitude as GeoJSON says: any GeoJSON
/// geometry (rings of `[longitude, latitude]`, first ring the shell, the others holes) or a
/// bbox (one that crosses the antimeridian when west > east).
public indirect enum FilterGeometry: Hashable, Sendable {
    case point(Coordinate)
    case multiPoint([Coordinate])
    case lineString([Coordinate])
    case multiLineString([[Coordinate]])
    /// A Polygon (one) or MultiPolygon: polygons, each a list of closed rings.
    case polygons([[[Coordinate]]])
    case collection([FilterGeometry])
    case bbox(BoundingBox)

    /// Where a point lies relative to this geometry (DE-9IM's interior, boundary, exterior).
    public enum Location: Hashable, Sendable { case interior, boundary, exterior }

    /// Whether `point` is inside, on the boundary of, or outside this geometry; nil for a
    /// collection (GEOS decides those).
    public func locate(_ point: Coordinate) -> Location? {
        switch self {
        case .point(let other):
            return other == point ? .interior : .exterior
        case .multiPoint(let points):
            return points.contains(point) ? .interior : .exterior
        case .bbox(let box):
            return Self.locate(point, in: box)
        case .lineString(let line):
            return Self.locate(point, onLines: [line])
        case .multiLineString(let lines):
            return Self.locate(point, onLines: lines)
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
        case .collection:
            return nil
        }
    }

    /// The points of a point or multipoint (what a point can equal or contain); nil otherwise.
    var points: [Coordinate]? {
        switch self {
        case .point(let point): return [point]
        case .multiPoint(let points): return points
        default: return nil
        }
    }

    /// The same geometry for GEOS; a bbox across the antimeridian is two boxes.
    var planar: PlanarGeometry {
        func box(_ west: Double, _ south: Double, _ east: Double, _ north: Double) -> [[Coordinate]] {
            [[(west, south), (east, south), (east, north), (west, north), (west, south)].map { Coordinate(latitude: $0.1, longitude: $0.0) }]
        }
        switch self {
        case .point(let point): return .point(point)
        case .multiPoint(let points): return .multiPoint(points)
        case .lineString(let line): return .lineString(line)
        case .multiLineString(let lines): return .multiLineString(lines)
        case .polygons(let polygons): return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
        case .collection(let parts): return .collection(parts.map(\.planar))
        case .bbox(let b) where b.west > b.east:
            return .multiPolygon([box(b.west, b.south, 180, b.north), box(-180, b.south, b.east, b.north)])
        case .bbox(let b):
            return .polygon(box(b.west, b.south, b.east, b.north))
        }
    }

    /// Every position of the geometry.
    var positions: [Coordinate] {
        switch self {
        case .point(let point): return [point]
        case .multiPoint(let points), .lineString(let points): return points
        case .multiLineString(let lines): return lines.flatMap { $0 }
        case .polygons(let polygons): return polygons.flatMap { $0.first ?? [] }
        case .collection(let parts): return parts.flatMap(\.positions)
        case .bbox(let box): return [Coordinate(latitude: box.south, longitude: box.west), Coordinate(latitude: box.north, longitude: box.east)]
        }
    }

    /// The box around the geometry (for a query's first cut), west > east when it crosses 180°.
    public var bounds: BoundingBox {
        switch self {
        case .bbox(let box):
            return box
        case .polygons(let polygons):
            let shells = polygons.compactMap(\.first).filter { !$0.isEmpty }
            return Self.bounds(of: shells)
        case .collection(let parts):
            let boxes = parts.map(\.bounds)
            let (west, east) = Self.longitudeCover(boxes.flatMap { $0.west > $0.east ? [($0.west, 180), (-180, $0.east)] : [($0.west, $0.east)] })
            return BoundingBox(west: west, south: boxes.map(\.south).min() ?? 0, east: east, north: boxes.map(\.north).max() ?? 0)
        case .multiLineString(let lines):
            return Self.bounds(of: lines)
        default:
            return Self.bounds(of: [positions])
        }
    }

    /// The box around groups of positions, each group one longitude interval.
    private static func bounds(of groups: [[Coordinate]]) -> BoundingBox {
        let groups = groups.filter { !$0.isEmpty }
        let latitudes = groups.flatMap { $0.map(\.latitude) }
        let (west, east) = longitudeCover(groups.map { ($0.map(\.longitude).min() ?? 0, $0.map(\.longitude).max() ?? 0) })
        return BoundingBox(west: west, south: latitudes.min() ?? 0, east: east, north: latitudes.max() ?? 0)
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

    /// On lines: the boundary is the endpoints that end an odd number of unclosed lines (the
    /// mod-2 rule), the interior the rest of every line.
    private static func locate(_ p: Coordinate, onLines lines: [[Coordinate]]) -> Location {
        var ends = 0
        for line in lines where line.count >= 2 && line.first != line.last {
            if line.first == p { ends += 1 }
            if line.last == p { ends += 1 }
        }
        if ends % 2 == 1 { return .boundary }
        for line in lines {
            if line.count == 1, line[0] == p { return .interior }
            for index in 0..<max(0, line.count - 1) where onSegment(p, line[index], line[index + 1]) { return .interior }
        }
        return .exterior
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
