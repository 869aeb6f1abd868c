import Geodesy
public import MapGeometry
public import Timeline

/// A device's path for a map: its fixes in time order, cut where they are far apart in time and
/// where the path crosses the antimeridian, simplified to a tolerance (issue 36's tracks).
///
/// The order of work: cut at gaps, simplify each piece on the ellipsoid
/// (``GeodesicSimplifier``, so the tolerance holds whatever the longitudes), then cut the kept line
/// where a geodesic segment crosses ±180° (RFC 7946 §3.1.9), adding the crossing point at the end
/// of one part and the start of the next, with the time interpolated by distance along the segment.
public struct Track: Hashable, Sendable {
    /// One position of the drawn line.
    public struct Vertex: Hashable, Sendable {
        public var coordinate: Coordinate
        /// The fix's time; for a point added on the antimeridian, interpolated by distance.
        public var timestamp: Instant
    }

    /// The line's parts, each with two or more vertices: a fix alone between two gaps is a part
    /// of that position twice (RFC 7946 asks two or more positions of a line string).
    public var parts: [[Vertex]]
    /// Fixes read.
    public var fixCount: Int
    /// Fixes kept after simplification.
    public var keptCount: Int

    /// Seconds between fixes above which the line is cut, when the request names none.
    public static let defaultGap = 3600.0
    /// Metres of simplification when the request names none (a phone's GPS is rarely better).
    public static let defaultTolerance = 5.0

    /// The track of `fixes` (in time order).
    /// - Parameters:
    ///   - tolerance: metres, ≥ 0: the farthest a dropped fix may lie from the kept segment spanning it.
    ///   - gap: seconds: consecutive fixes further apart than this start a new part.
    /// - Throws: `CancellationError` when the task running it is cancelled (a request timed out):
    ///   simplifying a zigzag of 10 000 fixes can take seconds.
    public init(fixes: [LocationFix], tolerance: Double, gap: Double) throws {
        fixCount = fixes.count
        var pieces: [ArraySlice<LocationFix>] = []
        var start = fixes.startIndex
        for index in fixes.indices.dropFirst() where fixes[index].timestamp.seconds(since: fixes[index - 1].timestamp) > gap {
            pieces.append(fixes[start..<index])
            start = index
        }
        if start < fixes.endIndex { pieces.append(fixes[start...]) }
        var parts: [[Vertex]] = []
        var keptCount = 0
        for piece in pieces {
            let kept = try GeodesicSimplifier.keep(piece.map(\.coordinate), tolerance: tolerance, checkpoint: Task.checkCancellation)
                .map { piece[piece.startIndex + $0] }
                .map { Vertex(coordinate: $0.coordinate, timestamp: $0.timestamp) }
            keptCount += kept.count
            parts += Self.cutAtAntimeridian(kept)
        }
        self.parts = parts.map { $0.count == 1 ? [$0[0], $0[0]] : $0 }
        self.keptCount = keptCount
    }

    /// `line` cut where a segment crosses ±180°, each side ending on the crossing. A fix exactly on
    /// ±180° is written on the side it is reached from (179.5° → −180° ends at 180°), and a line
    /// that leaves it for the other side starts again there, so no segment spans the map.
    static func cutAtAntimeridian(_ line: [Vertex]) -> [[Vertex]] {
        guard let first = line.first else { return [] }
        var parts: [[Vertex]] = []
        var current = [first]
        for (a, b) in zip(line, line.dropFirst()) {
            let segment = GeodesicSegment(from: a.coordinate, to: b.coordinate)
            let turn = Self.reduced(b.coordinate.longitude - a.coordinate.longitude)
            let written = current[current.count - 1].coordinate
            if let crossing = segment.antimeridianCrossing() {
                let share = segment.length > 0 ? crossing.along / segment.length : 0
                let time = Instant(microseconds: a.timestamp.microseconds
                                   + Int64((Double(b.timestamp.microseconds - a.timestamp.microseconds) * share).rounded()))
                let side = crossing.eastward ? 180.0 : -180.0
                current.append(Vertex(coordinate: Coordinate(latitude: crossing.latitude, longitude: side), timestamp: time))
                parts.append(current)
                current = [Vertex(coordinate: Coordinate(latitude: crossing.latitude, longitude: -side), timestamp: time)]
            } else if abs(written.longitude) == 180, written.longitude > 0 ? turn > 0 : turn < 0 {
                // On the meridian, leaving for the other side: the other side starts at the same place
                // (a line that only starts there starts on that side).
                let other = Vertex(coordinate: Coordinate(latitude: written.latitude, longitude: -written.longitude), timestamp: current[current.count - 1].timestamp)
                if current.count > 1 { parts.append(current) }
                current = [other]
            }
            var vertex = b
            if abs(b.coordinate.longitude) == 180 {
                // The side of the part it ends, else the side it comes from.
                let side = current[current.count - 1].coordinate.longitude
                vertex.coordinate.longitude = side != 0 ? (side > 0 ? 180 : -180) : (turn > 0 ? 180 : -180)
            }
            current.append(vertex)
        }
        parts.append(current)
        return parts
    }

    /// Degrees reduced to −180…180.
    private static func reduced(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value > 180 { value -= 360 } else if value < -180 { value += 360 }
        return value
    }
}
