import Foundation
public import Geodesy
public import MapGeometry

/// A route with a tolerance: the points within `width / 2` metres of a line (issue 18's corridor).
/// Distances are the ellipsoid's, not degrees': the nearest segment is found in a plane about the
/// point (scaled by the WGS84 radii of curvature there), and the distance is then measured with
/// PROJ's geodesic to the closest point of that segment's geodesic.
public struct CorridorShape: Hashable, Sendable {
    public let line: [Coordinate]
    /// The whole width, metres: the line ± width / 2.
    public let width: Double
    public let bounds: BoundingBox

    /// Vertices a line may have.
    public static let vertexCounts = 2...10_000
    /// Widths a corridor may have, metres.
    public static let widths = 1.0...50_000.0

    /// A corridor of `line` and `width`; nil when either is out of range (see ``vertexCounts``, ``widths``).
    public init?(line: [Coordinate], width: Double) {
        guard Self.vertexCounts.contains(line.count), width.isFinite, Self.widths.contains(width) else { return nil }
        self.line = line
        self.width = width
        bounds = Self.bounds(of: line, reach: width / 2)
    }

    /// Metres from the corridor's edge: negative inside, positive outside.
    public func signedDistance(to coordinate: Coordinate) -> Double {
        distanceToLine(coordinate) - width / 2
    }

    /// Geodesic metres from `p` to the nearest point of the line.
    func distanceToLine(_ p: Coordinate) -> Double {
        let radians = Double.pi / 180
        let scale = (x: Ellipsoid.wgs84.parallelRadius(atLatitude: p.latitude) * radians,
                     y: Ellipsoid.wgs84.meridionalRadius(atLatitude: p.latitude) * radians)
        func project(_ c: Coordinate) -> (x: Double, y: Double) {
            var longitude = c.longitude - p.longitude
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            return (longitude * scale.x, (c.latitude - p.latitude) * scale.y)
        }
        // The plane's nearest segments (those within 1 % of the nearest), then the geodesic to each.
        var candidates: [(distance: Double, segment: Int, t: Double)] = []
        var best = Double.infinity
        var a = project(line[0])
        for index in 1..<line.count {
            let b = project(line[index])
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared == 0 ? 0 : max(0, min(1, -(a.x * dx + a.y * dy) / lengthSquared))
            let (ex, ey) = (a.x + t * dx, a.y + t * dy)
            let distance = (ex * ex + ey * ey).squareRoot()
            if distance <= best * 1.01 + 1 {
                best = min(best, distance)
                candidates.append((distance, index - 1, t))
            }
            a = b
        }
        return candidates.filter { $0.distance <= best * 1.01 + 1 }.map { candidate in
            let (start, end) = (line[candidate.segment], line[candidate.segment + 1])
            let segment = Geodesic.wgs84.inverse(from: start, to: end)
            let closest = Geodesic.wgs84.direct(from: start, azimuth: segment.initialAzimuth, distance: candidate.t * segment.distance).coordinate
            return Geodesic.wgs84.inverse(from: p, to: closest).distance
        }.min() ?? best
    }

    /// The line's box (the short way between consecutive vertices), widened by `reach` metres.
    static func bounds(of line: [Coordinate], reach: Double) -> BoundingBox {
        // Longitudes unwrapped along the line, so one that crosses 180° gets a box across it.
        var longitudes = [line[0].longitude]
        for point in line.dropFirst() {
            var longitude = point.longitude
            while longitude - longitudes[longitudes.count - 1] > 180 { longitude -= 360 }
            while longitude - longitudes[longitudes.count - 1] < -180 { longitude += 360 }
            longitudes.append(longitude)
        }
        let latitudes = line.map(\.latitude)
        // Degrees of latitude are at least 110 574 m; of longitude at least that × cos φ at the widest latitude.
        let latitudePad = reach / 110_574 + 1e-6
        let south = max(-90, latitudes.min()! - latitudePad), north = min(90, latitudes.max()! + latitudePad)
        let widest = max(abs(south), abs(north))
        let (west, east) = (longitudes.min()!, longitudes.max()!)
        guard widest < 89.9 else { return BoundingBox(west: -180, south: south, east: 180, north: north) }
        let longitudePad = reach / (111_319.49 * cos(widest * .pi / 180)) + 1e-6
        guard east - west + 2 * longitudePad < 360 else { return BoundingBox(west: -180, south: south, east: 180, north: north) }
        return BoundingBox(
            west: Coordinate.wrapLongitude(west - longitudePad), south: south,
            east: Coordinate.wrapLongitude(east + longitudePad), north: north)
    }
}
