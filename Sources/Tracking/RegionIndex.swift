public import MapGeometry

/// Finds the regions whose bounding box holds a point without looking at the others: a grid
/// hierarchy of 0.01°, 0.1°, 1° and 10° cells where each region sits in the cells of the finest
/// level its box covers with at most 4 × 4 of them (larger ones in a short world list).
/// Inserts and removals are O(cells touched); a query visits one cell per level.
public struct RegionIndex: Sendable {
    private static let cellSizes: [Double] = [0.01, 0.1, 1, 10]
    private static let maximumCellsPerSide = 4

    private var cells: [CellKey: [String]] = [:]
    private var world: [String] = []
    private var boxes: [String: BoundingBox] = [:]

    public init() {}

    /// The number of regions indexed.
    public var count: Int { boxes.count }

    /// Indexes `id` under the box `bounds` (replacing what it had).
    public mutating func insert(_ id: String, bounds: BoundingBox) {
        remove(id)
        boxes[id] = bounds
        let keys = Self.keys(for: bounds)
        for key in keys { cells[key, default: []].append(id) }
        if keys.isEmpty { world.append(id) }
    }

    /// Forgets `id`.
    public mutating func remove(_ id: String) {
        guard let bounds = boxes.removeValue(forKey: id) else { return }
        let keys = Self.keys(for: bounds)
        if keys.isEmpty { world.removeAll { $0 == id } }
        for key in keys {
            cells[key]?.removeAll { $0 == id }
            if cells[key]?.isEmpty == true { cells[key] = nil }
        }
    }

    /// The ids whose box holds `coordinate`, each once.
    public func candidates(at coordinate: Coordinate) -> [String] {
        var found: [String] = []
        for level in Self.cellSizes.indices {
            guard let ids = cells[Self.key(level: level, coordinate.longitude, coordinate.latitude)] else { continue }
            for id in ids where boxes[id]!.contains(coordinate) { found.append(id) }
        }
        for id in world where boxes[id]!.contains(coordinate) { found.append(id) }
        // A box split at the antimeridian may sit in two cells of one level.
        return found.count > 1 ? Array(Set(found)) : found
    }

    private struct CellKey: Hashable, Sendable { var level: Int8; var x: Int32; var y: Int32 }

    private static func key(level: Int, _ longitude: Double, _ latitude: Double) -> CellKey {
        let size = cellSizes[level]
        return CellKey(level: Int8(level), x: Int32((longitude / size).rounded(.down)), y: Int32((latitude / size).rounded(.down)))
    }

    /// The cells of the finest level that covers `bounds` (both halves of one that crosses 180°)
    /// with few enough cells; empty when even the coarsest needs too many.
    private static func keys(for bounds: BoundingBox) -> [CellKey] {
        let pieces = bounds.crossesAntimeridian
            ? [(bounds.west, 180.0), (-180.0, bounds.east)]
            : [(bounds.west, bounds.east)]
        for level in cellSizes.indices {
            var keys: [CellKey] = []
            for (west, east) in pieces {
                let low = key(level: level, west, bounds.south), high = key(level: level, east, bounds.north)
                guard high.x - low.x < maximumCellsPerSide, high.y - low.y < maximumCellsPerSide else { keys = []; break }
                for x in low.x...high.x { for y in low.y...high.y { keys.append(CellKey(level: Int8(level), x: x, y: y)) } }
            }
            if !keys.isEmpty { return keys }
        }
        return []
    }
}
