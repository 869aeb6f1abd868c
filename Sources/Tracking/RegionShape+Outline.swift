public import Geodesy
public import MapGeometry
import Synchronization

// A region drawn as GeoJSON polygons: what `/ogc/collections/regions` serves.

extension RegionShape {
    /// The region as polygons in longitude/latitude (RFC 7946): a polygon as itself; a circle
    /// and a corridor as their geodesic buffers, exteriors counterclockwise, cut at the
    /// antimeridian into one polygon each side (§3.1.9).
    ///
    /// A circle is the points at geodesic distance `radius` from the centre
    /// (`Geodesic.direct`), sampled by azimuth; a corridor is the union (GEOS) of, per segment,
    /// the two curves at `width / 2` square to the segment's geodesic and, per vertex, a circle of
    /// that radius. Both are sampled adaptively (``chordTolerance(radius:)``): an edge is halved
    /// until the geodesic distance from its lon/lat midpoint (the straight edge GeoJSON draws) to
    /// the true curve is within the tolerance, which is min(1 m, 0.1 % of the radius). A circle
    /// then has about π·√(r / 2·tolerance) vertices, up to twice that after halving: 71–142 up to
    /// r = 1 km, ≈ 700–1 400 at 100 km, ≈ 2 200–4 400 at 1 000 km.
    ///
    /// A circle holding a pole becomes the band from its edge to the pole, running along the
    /// antimeridian and the pole's parallel. A corridor whose line passes within `width / 2` of
    /// a pole is not drawn correctly (its vertex circle there is cut as if it held no pole).
    ///
    /// A segment's side has at most ``maximumSidePoints`` points, so a long segment of a narrow
    /// corridor is drawn with a larger error than the tolerance rather than with ten thousands of
    /// points. Outlines are kept per shape (``outlines``): a region is drawn once, not per request.
    /// - Throws: ``GeodesyError`` when GEOS fails on a corridor's union.
    public func outline() throws(GeodesyError) -> [GeoPolygon] {
        if let kept = Self.outlines.withLock({ $0[self] }) { return kept }
        let drawn = try draw()
        Self.outlines.withLock { kept in
            if kept.count >= Self.maximumKeptOutlines { kept.removeAll(keepingCapacity: true) }
            kept[self] = drawn
        }
        return drawn
    }

    /// Most points on one side of a corridor's segment (2 initial steps, each halved 7 times at most).
    public static let maximumSidePoints = 257
    /// Most positions of a corridor's line that are drawn (each costs a circle and two sides of
    /// geodesic samples and a piece of the GEOS union); a longer one has no outline.
    public static let maximumDrawnCorridorPositions = 32
    /// Most outlines kept; past it they are all dropped and drawn again as asked.
    static let maximumKeptOutlines = 4096
    /// The outlines drawn so far, by shape.
    private static let outlines = Mutex<[RegionShape: [GeoPolygon]]>([:])

    private func draw() throws(GeodesyError) -> [GeoPolygon] {
        switch self {
        case .polygon(let shape):
            return [shape.polygon]
        case .circle(let center, let radius):
            let polar = [90.0, -90].first { pole in
                Geodesic.wgs84.inverse(from: center, to: Coordinate(latitude: pole, longitude: center.longitude)).distance <= radius
            }
            let ring = Self.circleRing(center: center, radius: radius)
            if let polar { return [Self.polarCap(ring, pole: polar).rightHanded] }
            return try Self.splitAtAntimeridian([GeoPolygon(exterior: ring).rightHanded])
        case .corridor(let corridor):
            guard corridor.line.count <= Self.maximumDrawnCorridorPositions else {
                throw .invalidGeometry(reason: "a corridor of more than \(Self.maximumDrawnCorridorPositions) positions is not drawn")
            }
            return try Self.splitAtAntimeridian(GeoPolygon.union(Self.buffer(corridor)).map(\.rightHanded))
        }
    }

    /// The largest distance, metres, between a drawn edge and the curve it stands for, for a
    /// circle or corridor of `radius` metres (half the width for a corridor).
    public static func chordTolerance(radius: Double) -> Double {
        min(1, radius / 1000)
    }

    /// A closed ring of the circle, clockwise by azimuth, longitudes continuous from the
    /// centre's (for a circle holding a pole they run on through 360°).
    static func circleRing(center: Coordinate, radius: Double) -> [Coordinate] {
        let ring = sample(from: 0, to: 360, initial: 16, tolerance: chordTolerance(radius: radius)) { azimuth in
            Geodesic.wgs84.direct(from: center, azimuth: azimuth, distance: radius).coordinate
        }
        return align(ring, near: center.longitude)
    }

    /// The pieces whose union is the corridor, longitudes continuous along the line.
    static func buffer(_ corridor: CorridorShape) -> [GeoPolygon] {
        let reach = corridor.width / 2, tolerance = chordTolerance(radius: reach)
        var line = corridor.line
        for index in line.indices.dropFirst() {
            line[index].longitude = line[index - 1].longitude + Coordinate.wrapLongitude(line[index].longitude - line[index - 1].longitude)
        }
        var pieces = line.map { GeoPolygon(exterior: circleRing(center: $0, radius: reach)) }
        for (start, end) in zip(line, line.dropFirst()) {
            let segment = Geodesic.wgs84.inverse(from: start, to: end)
            guard segment.distance > 0 else { continue }
            func side(_ turn: Double) -> [Coordinate] {
                align(sample(from: 0, to: 1, initial: 2, tolerance: tolerance, maxDepth: 7) { t in
                    let along = Geodesic.wgs84.direct(from: start, azimuth: segment.initialAzimuth, distance: t * segment.distance)
                    return Geodesic.wgs84.direct(from: along.coordinate, azimuth: along.finalAzimuth + turn, distance: reach).coordinate
                }, near: start.longitude)
            }
            let (left, right) = (side(-90), side(90))
            pieces.append(GeoPolygon(exterior: left + right.reversed() + [left[0]]))
        }
        return pieces
    }

    /// Points of `curve` from `t0` to `t1`, both included, longitudes continuous: `initial` equal
    /// steps, each halved (`maxDepth` times at most) while the geodesic distance from the
    /// straight edge's lon/lat midpoint to the curve's point halfway exceeds `tolerance` metres.
    static func sample(from t0: Double, to t1: Double, initial: Int, tolerance: Double, maxDepth: Int = 16, _ curve: (Double) -> Coordinate) -> [Coordinate] {
        func continuing(_ c: Coordinate, from previous: Coordinate) -> Coordinate {
            Coordinate(latitude: c.latitude, longitude: previous.longitude + Coordinate.wrapLongitude(c.longitude - previous.longitude))
        }
        var points = [curve(t0)]
        func refine(_ a: Double, _ b: Double, _ pa: Coordinate, _ pb: Coordinate, depth: Int) {
            let mid = (a + b) / 2
            let pm = continuing(curve(mid), from: pa)
            let chord = Coordinate(latitude: (pa.latitude + pb.latitude) / 2, longitude: (pa.longitude + pb.longitude) / 2)
            if depth < maxDepth, Geodesic.wgs84.inverse(from: chord, to: pm).distance > tolerance {
                refine(a, mid, pa, pm, depth: depth + 1)
                refine(mid, b, pm, continuing(pb, from: pm), depth: depth + 1)
            } else {
                points.append(pb)
            }
        }
        let step = (t1 - t0) / Double(initial)
        for index in 0..<initial {
            let a = t0 + Double(index) * step, b = index == initial - 1 ? t1 : a + step
            let last = points[points.count - 1]
            refine(a, b, last, continuing(curve(b), from: last), depth: 0)
        }
        return points
    }

    /// `points` shifted by a multiple of 360° so the first lies within 180° of `longitude`.
    static func align(_ points: [Coordinate], near longitude: Double) -> [Coordinate] {
        guard let first = points.first else { return points }
        let shift = longitude + Coordinate.wrapLongitude(first.longitude - longitude) - first.longitude
        return shift == 0 ? points : points.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude + shift) }
    }

    /// A ring around a pole (longitudes running through 360°) as the polygon from the ring to the
    /// pole: the ring cut at the antimeridian, closed along ±180° and the pole's parallel.
    static func polarCap(_ ring: [Coordinate], pole: Double) -> GeoPolygon {
        var path = ring.last!.longitude < ring[0].longitude ? Array(ring.reversed()) : ring  // eastward
        let start = Coordinate.wrapLongitude(path[0].longitude)
        let shift = (start == 180 ? -180 : start) - path[0].longitude
        path = path.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude + shift) }
        // Now from L to L + 360 with L in −180..<180: the part past 180 moves west by 360 and leads.
        let cut = path.firstIndex { $0.longitude >= 180 } ?? path.count - 1
        let (before, after) = (path[cut - 1], path[cut])
        let latitude = before.latitude + (after.latitude - before.latitude) * (180 - before.longitude) / (after.longitude - before.longitude)
        let west = path[cut...].dropFirst(path[cut].longitude == 180 ? 1 : 0).map { Coordinate(latitude: $0.latitude, longitude: $0.longitude - 360) }
        let east = path[1..<cut]  // path[0] is path.last moved back by 360, already in `west`
        let edge = [Coordinate(latitude: latitude, longitude: -180)] + west + east + [Coordinate(latitude: latitude, longitude: 180)]
        return GeoPolygon(exterior: edge + [Coordinate(latitude: pole, longitude: 180), Coordinate(latitude: pole, longitude: -180), edge[0]])
    }

    /// Polygons with longitudes past ±180° cut there into pieces shifted back by 360°.
    static func splitAtAntimeridian(_ polygons: [GeoPolygon]) throws(GeodesyError) -> [GeoPolygon] {
        var result: [GeoPolygon] = []
        for polygon in polygons {
            let longitudes = polygon.exterior.map(\.longitude)
            guard let west = longitudes.min(), let east = longitudes.max(), west < -180 || east > 180 else {
                result.append(polygon)
                continue
            }
            for band in [-1.0, 0, 1] where east > -180 + 360 * band && west < 180 + 360 * band {
                let shift = -360 * band
                for piece in try polygon.clipped(west: -180 + 360 * band, east: 180 + 360 * band) {
                    let move = { (c: Coordinate) in Coordinate(latitude: c.latitude, longitude: c.longitude + shift) }
                    result.append(GeoPolygon(exterior: piece.exterior.map(move), holes: piece.holes.map { $0.map(move) }).rightHanded)
                }
            }
        }
        return result
    }
}
