import Foundation
public import MapGeometry

/// The convex hull of a run's fixes in a local plane around the run's first fix (x east, y north,
/// degrees of latitude; longitudes unwrapped around the first fix and scaled by the cosine of its
/// latitude). The fix farthest from any point is one of its vertices, so a run checks only these
/// against its centre: their number grows like the logarithm of the fixes for GPS noise (a few
/// dozen at most in practice), not with the length of the stay.
public struct StayHull: Hashable, Sendable {
    /// The vertices, counter-clockwise from the lowest-leftmost, as the fixes' coordinates.
    public private(set) var vertices: [Coordinate]
    /// The first fix's place: the plane's origin.
    public let origin: Coordinate

    public init(origin: Coordinate, vertices: [Coordinate] = []) {
        self.origin = origin
        self.vertices = vertices
    }

    /// Longitude `longitude` unwrapped around the origin's: within 180° of it.
    public func unwrap(_ longitude: Double) -> Double {
        var delta = (longitude - origin.longitude).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 } else if delta <= -180 { delta += 360 }
        return origin.longitude + delta
    }

    private func planar(_ c: Coordinate) -> (x: Double, y: Double) {
        ((unwrap(c.longitude) - origin.longitude) * cos(origin.latitude * .pi / 180), c.latitude - origin.latitude)
    }

    /// The hull with `point` added (unchanged when it lies inside or on it).
    public func adding(_ point: Coordinate) -> StayHull {
        if contains(point) { return self }
        var hull = self
        hull.vertices = Self.monotoneChain(vertices + [point], planar)
        return hull
    }

    /// Whether `point` lies inside or on the hull (a hull of fewer than 3 vertices holds only them).
    private func contains(_ point: Coordinate) -> Bool {
        if vertices.contains(point) { return true }
        guard vertices.count >= 3 else { return false }
        let p = planar(point)
        let q = vertices.map(planar)
        for i in q.indices {
            let a = q[i], b = q[(i + 1) % q.count]
            if (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) < 0 { return false }
        }
        return true
    }

    /// Andrew's monotone chain: the hull's vertices counter-clockwise, collinear points dropped.
    private static func monotoneChain(_ points: [Coordinate], _ planar: (Coordinate) -> (x: Double, y: Double)) -> [Coordinate] {
        let sorted = points.map { (c: $0, p: planar($0)) }.sorted { ($0.p.x, $0.p.y) < ($1.p.x, $1.p.y) }
        guard sorted.count > 2 else { return sorted.map(\.c) }
        func cross(_ o: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [(c: Coordinate, p: (x: Double, y: Double))] = []
        for point in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2].p, lower[lower.count - 1].p, point.p) <= 0 { lower.removeLast() }
            lower.append(point)
        }
        var upper: [(c: Coordinate, p: (x: Double, y: Double))] = []
        for point in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2].p, upper[upper.count - 1].p, point.p) <= 0 { upper.removeLast() }
            upper.append(point)
        }
        return (lower.dropLast() + upper.dropLast()).map(\.c)
    }
}
