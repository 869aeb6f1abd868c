public import MapGeometry

/// Finds the regions whose bounding box holds a point without looking at the others: a grid
/// hierarchy of 0.002°, 0.01°, 0.05°, 0.25°, 1° and 5° cells where each region sits in the cells of
/// the finest level its box covers with at most 4 × 4 of them (larger ones in a short world list).
/// A cell lists its regions' boxes inline, so a query reads one cell per level and compares
/// numbers; inserts and removals are O(cells touched).
public struct RegionIndex: Sendable {
    private static let cellSizes: [Double] = [0.002, 0.01, 0.05, 0.25, 1, 5]
    private static let maximumCellsPerSide: Int32 = 4

    private struct Entry: Sendable { var slot: Int32; var box: BoundingBox }
    private struct CellKey: Hashable, Sendable { var level: Int8; var x: Int32; var y: Int32 }

    private var cells: [CellKey: [Entry]] = [:]
    private var world: [Entry] = []
    /// Slot → id and box (nil once removed); freed slots are reused.
    private var slots: [(id: String, box: BoundingBox)?] = []
    private var freeSlots: [Int32] = []
    private var slotOf: [String: Int32] = [:]

    public init() {}

    /// The number of regions indexed.
    public var count: Int { slotOf.count }

    /// Indexes `id` under the box `bounds` (replacing what it had).
    public mutating func insert(_ id: String, bounds: BoundingBox) {
        remove(id)
        let slot = freeSlots.popLast() ?? Int32(slots.count)
        if slot == slots.count { slots.append(nil) }
        slots[Int(slot)] = (id, bounds)
        slotOf[id] = slot
        let keys = Self.keys(for: bounds)
        let entry = Entry(slot: slot, box: bounds)
        for key in keys { cells[key, default: []].append(entry) }
        if keys.isEmpty { world.append(entry) }
    }

    /// Forgets `id`.
    public mutating func remove(_ id: String) {
        guard let slot = slotOf.removeValue(forKey: id), let bounds = slots[Int(slot)]?.box else { return }
        let keys = Self.keys(for: bounds)
        if keys.isEmpty { world.removeAll { $0.slot == slot } }
        for key in keys {
            cells[key]?.removeAll { $0.slot == slot }
            if cells[key]?.isEmpty == true { cells[key] = nil }
        }
        slots[Int(slot)] = nil
        freeSlots.append(slot)
    }

    /// The ids whose box holds `coordinate`, each once.
    public func candidates(at coordinate: Coordinate) -> [String] {
        var found: [String] = []
        func collect(_ entries: [Entry]) {
            // A cell lists only occupied slots (``remove(_:)`` clears both together).
            for entry in entries where entry.box.contains(coordinate) {
                if let id = slots[Int(entry.slot)]?.id { found.append(id) }
            }
        }
        for level in Self.cellSizes.indices {
            if let entries = cells[Self.key(level: level, coordinate.longitude, coordinate.latitude)] { collect(entries) }
        }
        collect(world)
        return found
    }

    /// The ids whose box meets `box` (a segment's, for crossings), each once. Each level's cells
    /// under the box are read; a level where the box spans more than ``maximumScan`` cells a side
    /// is read whole instead.
    public func candidates(meeting box: BoundingBox) -> [String] {
        var slots = Set<Int32>()
        func collect(_ entries: [Entry]) {
            for entry in entries where entry.box.meets(box) { slots.insert(entry.slot) }
        }
        let pieces = box.crossesAntimeridian ? [(box.west, 180.0), (-180.0, box.east)] : [(box.west, box.east)]
        for level in Self.cellSizes.indices {
            let ranges = pieces.map { (Self.key(level: level, $0.0, box.south), Self.key(level: level, $0.1, box.north)) }
            if ranges.contains(where: { $0.1.x - $0.0.x > Self.maximumScan || $0.1.y - $0.0.y > Self.maximumScan }) {
                for (key, entries) in cells where key.level == Int8(level) { collect(entries) }
                continue
            }
            for (low, high) in ranges {
                for x in low.x...high.x { for y in low.y...high.y { if let entries = cells[CellKey(level: Int8(level), x: x, y: y)] { collect(entries) } } }
            }
        }
        collect(world)
        return slots.sorted().compactMap { self.slots[Int($0)]?.id }
    }

    /// Cells a side of a box query reads at one level before it reads the level whole.
    private static let maximumScan: Int32 = 32

    private static func key(level: Int, _ longitude: Double, _ latitude: Double) -> CellKey {
        let size = cellSizes[level]
        return CellKey(level: Int8(level), x: Int32((longitude / size).rounded(.down)), y: Int32((latitude / size).rounded(.down)))
    }

    /// The cells of the finest level that covers `bounds` (both halves of one that crosses 180°)
    /// with few enough cells, each once; empty when even the coarsest needs too many.
    private static func keys(for bounds: BoundingBox) -> [CellKey] {
        let pieces = bounds.crossesAntimeridian
            ? [(bounds.west, 180.0), (-180.0, bounds.east)]
            : [(bounds.west, bounds.east)]
        levels: for level in cellSizes.indices {
            var keys: Set<CellKey> = []
            for (west, east) in pieces {
                let low = key(level: level, west, bounds.south), high = key(level: level, east, bounds.north)
                guard high.x - low.x < maximumCellsPerSide, high.y - low.y < maximumCellsPerSide else { continue levels }
                for x in low.x...high.x { for y in low.y...high.y { keys.insert(CellKey(level: Int8(level), x: x, y: y)) } }
            }
            return Array(keys)
        }
        return []
    }
}
