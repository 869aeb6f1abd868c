import Annotations
import Foundation
import MapGeometry
@testable import AnnotationIndex
import Timeline

/// Grid clustering written the slow, obvious way from DESIGN.md's rules, to check the index against.
struct ReferencePoint {
    var id: AnnotationID
    var coordinate: Coordinate
    var kind: String?
    var group: String?
    var priority: Int
    /// Its value of property `v` (nil: none), for aggregates and weights.
    var value: Double?

    var entry: ThinningEntry {
        ThinningEntry(
            id: id, coordinate: coordinate, kind: kind, clusteringIdentifier: group, displayPriority: priority,
            numbers: value.map { ["v": $0] } ?? [:])
    }

    var mapPoint: MapPoint { Mercator.mapPoint(for: coordinate) }

    /// The grid cell (column, row) at a level: x shifted by a third of the world, whole map points.
    func cell(level: Int) -> (Int, Int) {
        let world = Mercator.worldSize
        var x = (mapPoint.x + ThinningGrid.shift).truncatingRemainder(dividingBy: world)
        if x < 0 { x += world }
        let ix = Int(x.rounded(.down)), iy = Int(min(max(mapPoint.y.rounded(.down), 0), world - 1))
        return (ix >> level, iy >> level)
    }
}

struct ReferenceCluster: Equatable {
    var count: Int
    var representative: AnnotationID
    var expansionZoom: Int?
    var kindCounts: [String: Int]
    var centroid: Coordinate
    var bounds: MapRect
}

enum Reference {
    /// Singles and clusters of the cells `rect` touches, keyed "cell/group" for clusters.
    static func thin(_ points: [ReferencePoint], rect: MapRect, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter())
        -> (singles: Set<AnnotationID>, clusters: [String: ReferenceCluster]) {
        var (singles, cells) = cells(points, rect: rect, grid: grid, filter: filter)
        var clusters: [String: ReferenceCluster] = [:]
        for (key, members) in cells {
            if members.count == 1 { singles.insert(members[0].id); continue }
            let best = members.min { ($0.priority, $1.id) > ($1.priority, $0.id) }!
            var kindCounts: [String: Int] = [:]
            for member in members { if let kind = member.kind { kindCounts[kind, default: 0] += 1 } }
            let xs = members.map { unwrapped($0.mapPoint.x) }, ys = members.map(\.mapPoint.y)
            let centroid = MapPoint(x: xs.reduce(0, +) / Double(xs.count), y: ys.reduce(0, +) / Double(ys.count))
            let bounds = MapRect(minX: xs.min()!, minY: ys.min()!, maxX: xs.max()!, maxY: ys.max()!)
            clusters[key] = ReferenceCluster(
                count: members.count, representative: best.id,
                expansionZoom: expansionZoom(members, from: grid), kindCounts: kindCounts,
                centroid: Mercator.coordinate(for: centroid), bounds: bounds)
        }
        return (singles, clusters)
    }

    /// The required annotations `rect` touches, and the members of every other cell it touches,
    /// keyed "column,row/group".
    static func cells(_ points: [ReferencePoint], rect: MapRect, grid: ThinningGrid, filter: ThinningFilter = ThinningFilter())
        -> (required: Set<AnnotationID>, cells: [String: [ReferencePoint]]) {
        let chosen = points.filter { point in
            (filter.kinds.map { kinds in point.kind.map(kinds.contains) ?? false } ?? true)
                && (filter.clusteringIdentifiers.map { ids in point.group.map(ids.contains) ?? false } ?? true)
                && point.priority >= (filter.minDisplayPriority ?? 0)
        }
        var required = Set<AnnotationID>()
        var cells: [String: [ReferencePoint]] = [:]
        for point in chosen {
            let (column, row) = point.cell(level: grid.level)
            guard touches(column: column, row: row, level: grid.level, rect: rect) else { continue }
            if point.priority == 1000 { required.insert(point.id); continue }
            cells["\(column),\(row)/\(point.group ?? "∅")", default: []].append(point)
        }
        return (required, cells)
    }

    /// x in the frame where cells do not wrap: shifted x minus the shift.
    static func unwrapped(_ x: Double) -> Double {
        let world = Mercator.worldSize
        var shifted = (x + ThinningGrid.shift).truncatingRemainder(dividingBy: world)
        if shifted < 0 { shifted += world }
        return shifted - ThinningGrid.shift
    }

    static func expansionZoom(_ members: [ReferencePoint], from grid: ThinningGrid) -> Int? {
        guard grid.zoom < 22 else { return nil }
        for zoom in (grid.zoom + 1)...22 {
            let level = ThinningGrid(zoom: zoom, cellSize: grid.cellSize).level
            let cells = Set(members.map { "\($0.cell(level: level))" })
            if cells.count > 1 { return zoom }
        }
        return nil
    }

    /// Whether cell (column, row) overlaps the rect, x compared around the world.
    static func touches(column: Int, row: Int, level: Int, rect: MapRect) -> Bool {
        let side = Double(1 << level), world = Mercator.worldSize
        let top = Double(row) * side
        guard top < min(rect.maxY, world), top + side > max(rect.minY, 0) else { return false }
        let west = Double(column) * side - ThinningGrid.shift
        return (-2...2).contains { k in
            let shiftedWest = west + Double(k) * world
            return shiftedWest < rect.maxX && shiftedWest + side > rect.minX
        }
    }
}

/// Time-ordered ids for tests: a version-7 layout with a counter.
func testID(_ n: Int) -> AnnotationID {
    AnnotationID(high: UInt64(0x0190_0000_0000) << 16 | 0x7000 | UInt64(n >> 40) & 0xFFF, low: 0x8000_0000_0000_0000 | UInt64(n))
}

extension ThinningIndex {
    /// One write, as the follower applies a batch (tests write one at a time).
    func upsert(_ entry: ThinningEntry) {
        apply(upserts: [entry], removals: [], through: sequence)
    }

    /// One deletion, as the follower applies a batch.
    func remove(_ id: AnnotationID) {
        apply(upserts: [], removals: [id], through: sequence)
    }
}
