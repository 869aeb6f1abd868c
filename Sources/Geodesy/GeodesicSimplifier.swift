public import MapGeometry

/// Douglas–Peucker on the ellipsoid: which points of a line to keep so that every dropped point
/// lies within a tolerance of the kept line.
///
/// The distance is geodesic, from the point to the geodesic *segment* between the kept points
/// on either side of it (``GeodesicSegment/nearest(to:)``), not to the great circle through them.
/// Otherwise the steps are GEOS's `DouglasPeuckerLineSimplifier` (what shapely's
/// `simplify(preserve_topology=False)` runs): a section whose farthest point is at most the
/// tolerance away is dropped whole; else it is split at its farthest point (the first of equals)
/// and both halves are simplified.
public enum GeodesicSimplifier {
    /// The indexes of `points` to keep, ascending; the first and last are always kept (to the end).
    public static func keep(_ points: [Coordinate], tolerance: Double) -> [Int] {
        keep(points, tolerance: tolerance, checkpoint: {})
    }

    /// The indexes of `points` to keep, ascending; the first and last are always kept.
    /// - Parameters:
    ///   - tolerance: metres, ≥ 0; 0 drops only points lying exactly on the kept segment
    ///     (repeated positions among them).
    ///   - checkpoint: called before each section (a zigzag of n points takes O(n²) distances):
    ///     what it throws stops the work, e.g. `Task.checkCancellation` for a request timed out.
    public static func keep(_ points: [Coordinate], tolerance: Double, checkpoint: () throws -> Void) rethrows -> [Int] {
        guard points.count > 2 else { return Array(points.indices) }
        var kept = [Bool](repeating: false, count: points.count)
        kept[0] = true
        kept[points.count - 1] = true
        // Sections still to look at, as (first, last) index pairs; a stack, so a 10 000-point
        // zigzag needs no recursion depth.
        var sections = [(0, points.count - 1)]
        while let (first, last) = sections.popLast() {
            guard last - first > 1 else { continue }
            try checkpoint()
            let segment = GeodesicSegment(from: points[first], to: points[last])
            var farthest = (index: first, distance: -1.0)
            for index in (first + 1)..<last {
                let distance = segment.distance(to: points[index])
                if distance > farthest.distance { farthest = (index, distance) }
            }
            guard farthest.distance > tolerance else { continue }
            kept[farthest.index] = true
            sections.append((farthest.index, last))
            sections.append((first, farthest.index))
        }
        return kept.indices.filter { kept[$0] }
    }
}
