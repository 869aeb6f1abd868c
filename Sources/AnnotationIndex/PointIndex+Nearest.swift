public import Annotations
import Geodesy
public import MapGeometry

extension PointIndex {
    /// Live annotations by WGS84 geodesic distance from `origin`, nearest first, ties by id; only
    /// those within `maxDistance` (metres) and at coordinates `admits` lets through. Pull as many
    /// as wanted from the search; it measures only what it must to be sure of the order.
    public func nearest(to origin: Coordinate, maxDistance: Double? = nil, admitting admits: @escaping (Coordinate) -> Bool = { _ in true }) -> NearestSearch {
        NearestSearch(snapshot: snapshot(), origin: origin, maxDistance: maxDistance ?? .infinity, admits: admits)
    }
}

/// A best-first walk of the implicit quadtree of a ``PointIndex`` run: cells and points wait in
/// one queue ordered by a lower bound of their distance (``DistanceBound``); a point taken from
/// it is measured exactly (PROJ's geodesic inverse) and is answered once no bound left in the
/// queue is as small as its distance. Points written since the run was built wait in the queue
/// from the start.
public struct NearestSearch {
    /// A cell holding at most this many points is not split: its points join the queue.
    static let leafSize = 16
    static let world = UInt64(1) << UInt64(MortonCode.bitsPerAxis)

    private struct Candidate: Comparable {
        var bound: Double
        /// A cell: its side is 2^`shift` map points; a point: `shift` is ``point`` or ``addedPoint``.
        var shift: Int8
        var column: UInt32, row: UInt32
        /// The cell's positions in the run; a point's position in the run or in `added`.
        var low: Int32, high: Int32

        static let point: Int8 = -1, addedPoint: Int8 = -2

        static func < (a: Candidate, b: Candidate) -> Bool { a.bound < b.bound }
        static func == (a: Candidate, b: Candidate) -> Bool { a.bound == b.bound }
    }

    private struct Measured: Comparable {
        var distance: Double
        var id: AnnotationID
        var version: Int
        static func < (a: Measured, b: Measured) -> Bool { (a.distance, a.id) < (b.distance, b.id) }
    }

    private let snapshot: PointIndex.Snapshot
    private let added: [(id: AnnotationID, point: PointIndex.Point)]
    private let origin: Coordinate
    private let bounds: DistanceBound.Origin
    private let maxDistance: Double
    private let admits: (Coordinate) -> Bool
    private var queue = MinHeap<Candidate>()
    private var measured = MinHeap<Measured>()

    init(snapshot: PointIndex.Snapshot, origin: Coordinate, maxDistance: Double, admits: @escaping (Coordinate) -> Bool) {
        self.snapshot = snapshot
        self.origin = origin
        self.maxDistance = maxDistance
        self.admits = admits
        bounds = DistanceBound.Origin(origin)
        added = snapshot.added.map { ($0.key, $0.value) }
        if snapshot.run.count > 0 {
            queue.push(Candidate(bound: 0, shift: Int8(MortonCode.bitsPerAxis), column: 0, row: 0, low: 0, high: Int32(snapshot.run.count)))
        }
        for (position, point) in added.enumerated() {
            enqueuePoint(point.point.coordinate, shift: Candidate.addedPoint, position: position)
        }
    }

    /// The next nearest annotation (its id and the version the index holds) and its distance in
    /// metres, or nil when none is left.
    public mutating func next() -> (reference: PointReference, distance: Double)? {
        while true {
            if let best = measured.first, queue.first.map({ best.distance < $0.bound }) ?? true {
                measured.pop()
                return (PointReference(id: best.id, version: best.version), best.distance)
            }
            guard let candidate = queue.pop() else { return nil }
            switch candidate.shift {
            case Candidate.point:
                let position = Int(candidate.low)
                measure(snapshot.run.coordinate(at: position), id: snapshot.run.ids[position], version: snapshot.run.versions[position])
            case Candidate.addedPoint:
                let point = added[Int(candidate.low)]
                measure(point.point.coordinate, id: point.id, version: point.point.version)
            default:
                split(candidate)
            }
        }
    }

    private mutating func measure(_ coordinate: Coordinate, id: AnnotationID, version: Int) {
        let distance = Geodesic.wgs84.inverse(from: origin, to: coordinate).distance
        if distance <= maxDistance { measured.push(Measured(distance: distance, id: id, version: version)) }
    }

    private mutating func enqueuePoint(_ coordinate: Coordinate, shift: Int8, position: Int) {
        guard admits(coordinate) else { return }
        let bound = bounds.bound(latitude: coordinate.latitude, longitude: coordinate.longitude)
        if bound <= maxDistance {
            queue.push(Candidate(bound: bound, shift: shift, column: 0, row: 0, low: Int32(position), high: Int32(position + 1)))
        }
    }

    /// A small cell's points, or a large one's four quarters, join the queue.
    private mutating func split(_ cell: Candidate) {
        let run = snapshot.run
        if cell.shift == 0 || Int(cell.high - cell.low) <= Self.leafSize {
            for position in Int(cell.low)..<Int(cell.high) where snapshot.isLive(position) {
                enqueuePoint(run.coordinate(at: position), shift: Candidate.point, position: position)
            }
            return
        }
        let shift = cell.shift - 1
        let quarter = UInt64(1) << UInt64(2 * Int(shift))
        let base = MortonCode(x: cell.column << UInt32(cell.shift), y: cell.row << UInt32(cell.shift)).rawValue
        var low = Int(cell.low)
        for k in 0..<4 {
            let high = k == 3 ? Int(cell.high) : run.firstPosition(atLeast: base + UInt64(k + 1) * quarter, from: low, to: Int(cell.high))
            if high > low {
                let column = cell.column << 1 | UInt32(k & 1), row = cell.row << 1 | UInt32(k >> 1)
                let bound = cellBound(shift: shift, column: column, row: row)
                if bound <= maxDistance {
                    queue.push(Candidate(bound: bound, shift: shift, column: column, row: row, low: Int32(low), high: Int32(high)))
                }
            }
            low = high
        }
    }

    /// A lower bound of the distance to any point whose map point lies in the cell. Rows on the
    /// world's top and bottom edge also hold the latitudes beyond ±85.05° that Mercator clamps.
    private func cellBound(shift: Int8, column: UInt32, row: UInt32) -> Double {
        let side = UInt64(1) << UInt64(shift)
        let minX = UInt64(column) * side, minY = UInt64(row) * side
        let pad = 1e-9
        let north = minY == 0 ? 90 : Mercator.latitude(forY: Double(minY)) + pad
        let south = minY + side >= Self.world ? -90 : Mercator.latitude(forY: Double(minY + side)) - pad
        // Not wrapped: the last column's east edge is 180, not −180.
        let west = Double(minX) / Double(Self.world) * 360 - 180 - pad
        let east = Double(minX + side) / Double(Self.world) * 360 - 180 + pad
        return bounds.bound(south: south, north: north, west: west, east: east)
    }
}
