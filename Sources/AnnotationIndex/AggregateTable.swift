/// Where an answer's aggregated columns are in each partition's ``ThinningPartition/columnBlocks``:
/// each below 16 (``ThinningIndex/maxColumns``), packed 4 bits each in one word, so an answer
/// allocates nothing to name them.
struct ColumnPlaces {
    private var packed: UInt64 = 0
    private(set) var count = 0

    static let capacity = 16

    var isFull: Bool { count == Self.capacity }

    mutating func append(_ place: Int) {
        precondition(!isFull && (0..<16).contains(place), "at most 16 places below 16")
        packed |= UInt64(place) << (4 * count)
        count += 1
    }

    subscript(k: Int) -> Int { Int(truncatingIfNeeded: packed >> (4 * k)) & 0xf }
}

/// The aggregates of one answer's clusters, a row of ``ValueStats`` per cluster and a column per
/// property asked for: one allocation per answer instead of an array per cluster (a thin answer
/// makes hundreds). Filled by the answer that makes it, row by row as its clusters are made, under
/// the index's read lock, and only read once that answer is returned.
final class AggregateTable: @unchecked Sendable {
    /// The properties, in the order of each row's values.
    let names: [String]
    private(set) var stats: [ValueStats] = []

    init(names: [String], rows: Int = 0) {
        self.names = names
        stats.reserveCapacity(rows * names.count)
    }

    /// A table of one row.
    convenience init(names: [String], values: [ValueStats]) {
        self.init(names: names, rows: 1)
        stats = values
    }

    /// Appends a row of empty aggregates and returns its number.
    func addRow() -> Int {
        stats.append(contentsOf: repeatElement(ValueStats(), count: names.count))
        return stats.count / max(names.count, 1) - 1
    }

    /// Calls `body` with the row's values to add to (the table is not read meanwhile).
    func withRow<R>(_ row: Int, _ body: (UnsafeMutablePointer<ValueStats>) -> R) -> R {
        stats.withUnsafeMutableBufferPointer { body($0.baseAddress! + row * names.count) }
    }
}

/// One cluster's row of an ``AggregateTable``; equal to another when the names and values are.
struct AggregateRow: Hashable, Sendable {
    let table: AggregateTable
    let row: Int

    var names: [String] { table.names }
    var values: ArraySlice<ValueStats> { table.stats[row * table.names.count..<(row + 1) * table.names.count] }

    func aggregate(_ property: String) -> PropertyAggregate? {
        guard let k = table.names.firstIndex(of: property) else { return nil }
        return PropertyAggregate(stats: table.stats[row * table.names.count + k])
    }

    static func == (a: Self, b: Self) -> Bool {
        guard a.names == b.names else { return false }
        for (x, y) in zip(a.values, b.values) where PropertyAggregate(stats: x) != PropertyAggregate(stats: y) { return false }
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        for value in values { hasher.combine(PropertyAggregate(stats: value)) }
    }
}
