public import Annotations
import MapGeometry
import Synchronization
public import Timeline

/// Every live annotation's coordinate in the Morton order of its map point, for the query verbs:
/// nearest (``nearest(to:maxDistance:admitting:)``) and inside a box (``ids(in:admitting:)``).
/// A cell of any power-of-two grid is one contiguous range of the order, so the order is an
/// implicit quadtree: a search walks cells found by binary search instead of nodes it must keep.
///
/// One sorted run, plus the writes since it was built (the current coordinate of each changed id,
/// and the ids whose row in the run is out of date). When those grow past ``mergeThreshold`` they
/// are merged into a new run. Queries copy the three out under a lock (arrays are shared, not
/// copied) and search without it. The ``IndexFollower`` keeps it current beside the thinning index.
public final class PointIndex: Sendable {
    /// Parallel arrays, sorted by (code, id).
    struct Run: Sendable {
        var codes: [UInt64] = []
        var ids: [AnnotationID] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []
        var versions: [Int] = []
        /// The greatest id in the run: a newer one cannot have a row in it.
        var newest: AnnotationID?

        var count: Int { codes.count }

        func coordinate(at position: Int) -> Coordinate {
            Coordinate(latitude: latitudes[position], longitude: longitudes[position])
        }

        func reference(at position: Int) -> PointReference {
            PointReference(id: ids[position], version: versions[position])
        }

        /// The first position at or after `low` (below `high`) whose code is ≥ `code`.
        func firstPosition(atLeast code: UInt64, from low: Int, to high: Int) -> Int {
            codes.partitioningIndex(in: low..<high) { $0 >= code }
        }
    }

    /// Where an annotation is, and which version of it.
    struct Point: Sendable {
        var coordinate: Coordinate
        var version: Int
    }

    /// What a query reads.
    struct Snapshot: Sendable {
        var run = Run()
        /// The current point of each id written since the run was built.
        var added: [AnnotationID: Point] = [:]
        /// Ids whose row in the run is out of date: changed (then in `added`) or deleted since.
        var superseded: Set<AnnotationID> = []

        func isLive(_ position: Int) -> Bool {
            superseded.isEmpty || !superseded.contains(run.ids[position])
        }
    }

    /// Writes held beside the run before a merge: enough that a merge's O(n) is cheap per write,
    /// few enough that every search can look at each of them.
    static let mergeThreshold = 2_048

    private let state: Mutex<Snapshot>

    /// An index of `entries` (any order).
    public init(entries: [ThinningEntry]) {
        state = Mutex(Snapshot(run: Self.run(entries)))
    }

    /// Live annotations held.
    public var count: Int {
        state.withLock { s in s.run.count - s.run.ids.lazy.filter(s.superseded.contains).count + s.added.count }
    }

    /// Every live id in the index's (Morton) order, those written since the last merge last.
    public var idsInOrder: [AnnotationID] {
        let snapshot = snapshot()
        return (0..<snapshot.run.count).lazy.filter(snapshot.isLive).map { snapshot.run.ids[$0] } + snapshot.added.keys
    }

    func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// Applies a batch of writes: `upserts` are current entries, `removals` deleted ids.
    public func apply(upserts: [ThinningEntry], removals: [AnnotationID]) {
        state.withLock { s in
            for id in removals {
                s.added[id] = nil
                s.superseded.insert(id)
            }
            for entry in upserts {
                s.added[entry.id] = Point(coordinate: entry.coordinate, version: entry.version)
                if let newest = s.run.newest, entry.id <= newest { s.superseded.insert(entry.id) }
            }
            if s.added.count + s.superseded.count > Self.mergeThreshold { s = Self.merged(s) }
        }
    }

    /// The run of the live points of `snapshot`, its writes folded in.
    private static func merged(_ snapshot: Snapshot) -> Snapshot {
        Snapshot(run: merge(snapshot.run, isLive: snapshot.isLive, sorted(snapshot.added.map { ($0.key, $0.value) })))
    }

    /// A run of `entries` (any order, ids distinct), each entry written straight to its place in
    /// the arrays: no sorted copy of the points on the way (at start-up a million points, each
    /// copy 50 MB of fresh memory, cost more in page faults than the sort itself).
    private static func run(_ entries: [ThinningEntry]) -> Run {
        let n = entries.count
        var run = Run()
        let places = entries.withUnsafeBufferPointer { entries in
            // Coded as `apply` codes a write (not from the entry's own map point), so the two agree.
            let codes = entries.map { code(of: $0.coordinate) }
            var order = RadixSort.order(of: codes)
            run.codes = (0..<n).map { codes[Int(order[$0])] }
            // Points of one code (coincident ones) by id.
            RadixSort.forEachTie(count: n, key: { run.codes[$0] }) { tie in order[tie].sort { entries[Int($0)].id < entries[Int($1)].id } }
            return RadixSort.places(of: order)
        }
        (run.ids, run.versions) = (Array(repeating: AnnotationID(high: 0, low: 0), count: n), Array(repeating: 0, count: n))
        (run.latitudes, run.longitudes) = (Array(repeating: 0, count: n), Array(repeating: 0, count: n))
        entries.withUnsafeBufferPointer { entries in
            run.ids.withUnsafeMutableBufferPointer { ids in
                run.latitudes.withUnsafeMutableBufferPointer { latitudes in
                    run.longitudes.withUnsafeMutableBufferPointer { longitudes in
                        run.versions.withUnsafeMutableBufferPointer { versions in
                            for (e, entry) in entries.enumerated() {
                                let k = Int(places[e])
                                (ids[k], versions[k]) = (entry.id, entry.version)
                                (latitudes[k], longitudes[k]) = (entry.coordinate.latitude, entry.coordinate.longitude)
                            }
                        }
                    }
                }
            }
            run.newest = entries.lazy.map(\.id).max()
        }
        return run
    }

    private typealias Keyed = (code: UInt64, id: AnnotationID, point: Point)

    private static func sorted(_ points: [(AnnotationID, Point)]) -> [Keyed] {
        var keyed = RadixSort.sorted(points.map { (code: code(of: $0.1.coordinate), id: $0.0, point: $0.1) }) { $0.code }
        // Points of one code (coincident ones) by id.
        RadixSort.forEachTie(count: keyed.count, key: { keyed[$0].code }) { tie in keyed[tie].sort { $0.id < $1.id } }
        return keyed
    }

    /// The live rows of `old` (in order already) and `writes` (sorted), merged in one pass.
    private static func merge(_ old: Run, isLive: (Int) -> Bool, _ writes: [Keyed]) -> Run {
        var run = Run()
        let capacity = old.count + writes.count
        run.codes.reserveCapacity(capacity); run.ids.reserveCapacity(capacity)
        run.latitudes.reserveCapacity(capacity); run.longitudes.reserveCapacity(capacity); run.versions.reserveCapacity(capacity)
        func append(_ code: UInt64, _ id: AnnotationID, _ latitude: Double, _ longitude: Double, _ version: Int) {
            run.codes.append(code); run.ids.append(id)
            run.latitudes.append(latitude); run.longitudes.append(longitude); run.versions.append(version)
        }
        func append(_ write: Keyed) {
            append(write.code, write.id, write.point.coordinate.latitude, write.point.coordinate.longitude, write.point.version)
        }
        var w = 0
        for position in 0..<old.count where isLive(position) {
            while w < writes.count, (writes[w].code, writes[w].id) < (old.codes[position], old.ids[position]) {
                append(writes[w])
                w += 1
            }
            append(old.codes[position], old.ids[position], old.latitudes[position], old.longitudes[position], old.versions[position])
        }
        for write in writes[w...] { append(write) }
        run.newest = [old.newest, writes.lazy.map(\.id).max()].compactMap { $0 }.max()
        return run
    }

    /// The Morton code of a coordinate's map point (latitudes beyond ±85.05° on the world's edge rows).
    static func code(of coordinate: Coordinate) -> UInt64 {
        MortonCode(Mercator.mapPoint(for: coordinate)).rawValue
    }
}

/// An annotation a query found in the index: its id and the version the index holds.
public struct PointReference: Hashable, Sendable {
    public var id: AnnotationID
    public var version: Int

    public init(id: AnnotationID, version: Int) {
        self.id = id
        self.version = version
    }
}
