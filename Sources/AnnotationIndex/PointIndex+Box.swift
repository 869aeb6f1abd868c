public import Annotations
public import MapGeometry

extension PointIndex {
    /// The live annotations inside `box` (edges included, across the antimeridian when west > east)
    /// at coordinates `admits` lets through, in id order.
    ///
    /// The box becomes one or two ranges of integer map points (a row or column of slack each way,
    /// so rounding never leaves a point out; the world's edge rows hold the latitudes Mercator
    /// clamps); cells of the implicit quadtree outside them are skipped whole, and each point of
    /// the rest is tested against the box and `admits`.
    public func references(in box: BoundingBox, admitting admits: (Coordinate) -> Bool = { _ in true }) -> [PointReference] {
        guard !box.isEmpty else { return [] }
        let snapshot = snapshot()
        let spans = box.crossesAntimeridian ? [(box.west, 180.0), (-180.0, box.east)] : [(box.west, box.east)]
        var found: [PointReference] = []
        let rows = Self.mapRange(Mercator.y(forLatitude: box.north), Mercator.y(forLatitude: box.south))
        var areas = spans.map { Self.MapArea(columns: Self.mapRange(Mercator.x(forLongitude: $0.0), Mercator.x(forLongitude: $0.1)), rows: rows) }
        // Longitude 180 is stored where −180 is (map x wraps to 0): a box reaching it from the west
        // must look there too.
        if !box.crossesAntimeridian, box.east == 180 { areas.append(Self.MapArea(columns: Self.mapRange(0, 0), rows: rows)) }
        for area in areas {
            Self.collect(in: area, snapshot: snapshot, accepts: { box.contains($0) && admits($0) }, into: &found)
        }
        for (id, point) in snapshot.added where box.contains(point.coordinate) && admits(point.coordinate) {
            found.append(PointReference(id: id, version: point.version))
        }
        // Two areas meet at ±180°: a point on that meridian is found by both.
        return (areas.count > 1 ? Array(Set(found)) : found).sorted { $0.id < $1.id }
    }

    /// Integer map-point columns and rows.
    struct MapArea {
        var columns: ClosedRange<UInt64>
        var rows: ClosedRange<UInt64>
    }

    /// The integer map points from `low` to `high`, one more each way, within the world.
    static func mapRange(_ low: Double, _ high: Double) -> ClosedRange<UInt64> {
        let last = Double(NearestSearch.world - 1)
        let from = min(max(low.rounded(.down) - 1, 0), last), to = min(max(high.rounded(.down) + 1, 0), last)
        return UInt64(from)...UInt64(max(from, to))
    }

    /// A cell holding at most this many points is scanned rather than split.
    static let scanSize = 64

    private static func collect(in area: MapArea, snapshot: Snapshot, accepts: (Coordinate) -> Bool, into found: inout [PointReference]) {
        let run = snapshot.run
        // (shift, column, row, low, high): a cell 2^shift map points wide and its run positions.
        var cells: [(shift: Int, column: UInt64, row: UInt64, low: Int, high: Int)] = [(MortonCode.bitsPerAxis, 0, 0, 0, run.count)]
        while let cell = cells.popLast() {
            let side = UInt64(1) << UInt64(cell.shift)
            let columns = cell.column * side...(cell.column * side + side - 1), rows = cell.row * side...(cell.row * side + side - 1)
            guard columns.overlaps(area.columns), rows.overlaps(area.rows), cell.high > cell.low else { continue }
            let inside = area.columns.contains(columns.lowerBound) && area.columns.contains(columns.upperBound)
                && area.rows.contains(rows.lowerBound) && area.rows.contains(rows.upperBound)
            if inside || cell.shift == 0 || cell.high - cell.low <= scanSize {
                for position in cell.low..<cell.high where snapshot.isLive(position) && accepts(run.coordinate(at: position)) {
                    found.append(run.reference(at: position))
                }
                continue
            }
            let shift = cell.shift - 1
            let quarter = UInt64(1) << UInt64(2 * shift)
            let base = MortonCode(x: UInt32(cell.column * side), y: UInt32(cell.row * side)).rawValue
            var low = cell.low
            for k in 0..<4 {
                let high = k == 3 ? cell.high : run.firstPosition(atLeast: base + UInt64(k + 1) * quarter, from: low, to: cell.high)
                cells.append((shift, cell.column << 1 | UInt64(k & 1), cell.row << 1 | UInt64(k >> 1), low, high))
                low = high
            }
        }
    }
}
