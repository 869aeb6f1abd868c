/// Where an answer's aggregated columns are in each partition's ``ThinningPartition/columnBlocks``:
/// up to 8 places below 256 packed a byte each in one word, so an answer (a request names at most
/// 8 properties) allocates nothing to name them; more, or a place beyond (the index holds more
/// than 16 columns only while answers hold them all), go to an array.
struct ColumnPlaces {
    private var packed: UInt64 = 0
    private var spilled: [Int]?
    private(set) var count = 0

    mutating func append(_ place: Int) {
        if spilled == nil, count < 8, (0..<256).contains(place) {
            packed |= UInt64(place) << (8 * count)
        } else {
            spilled = (spilled ?? (0..<count).map { self[$0] }) + [place]
        }
        count += 1
    }

    subscript(k: Int) -> Int {
        spilled?[k] ?? Int(truncatingIfNeeded: packed >> (8 * k)) & 0xff
    }
}

/// The aggregates of one answer's clusters, a row of ``ValueStats`` per cluster and a column per
/// property asked for, in one allocation per answer (its rows stored in the object itself) instead
/// of an array per cluster: a thin answer makes hundreds. Filled by the answer that makes it, row by
/// row as its clusters are made, under the index's read lock, and only read once that answer is
/// returned.
final class AggregateTable: ManagedBuffer<AggregateTable.Header, ValueStats> {
    struct Header {
        /// The properties, in the order of each row's values.
        let names: [String]
        /// Rows with room for them, and rows made so far.
        let room: Int
        var rows: Int
    }

    /// A table with room for `rows` rows.
    static func make(names: [String], rows: Int) -> AggregateTable {
        let table = unsafeDowncast(create(minimumCapacity: max(1, rows * names.count)) { _ in Header(names: names, room: rows, rows: 0) }, to: AggregateTable.self)
        table.withUnsafeMutablePointerToElements { $0.initialize(repeating: ValueStats(), count: rows * names.count) }
        return table
    }

    /// A table of one row.
    static func make(names: [String], values: [ValueStats]) -> AggregateTable {
        let table = make(names: names, rows: 1)
        table.withUnsafeMutablePointerToElements { elements in
            for (k, value) in values.prefix(names.count).enumerated() { elements[k] = value }
        }
        return table
    }

    var names: [String] { header.names }

    /// The next row (of empty aggregates), and its number; there is room for it.
    func addRow() -> Int {
        precondition(header.rows < header.room, "a row beyond the table's room")
        header.rows += 1
        return header.rows - 1
    }

    /// Calls `body` with the row's values to add to (the table is not read meanwhile).
    func withRow<R>(_ row: Int, _ body: (UnsafeMutablePointer<ValueStats>) -> R) -> R {
        withUnsafeMutablePointerToElements { body($0 + row * header.names.count) }
    }

    /// The value of row `row`, property `k`.
    func stats(row: Int, _ k: Int) -> ValueStats {
        withUnsafeMutablePointerToElements { $0[row * header.names.count + k] }
    }
}

/// One cluster's row of an ``AggregateTable``; equal to another when the names and values are.
/// Sendable as its table is once its answer is returned: read, never written again.
struct AggregateRow: Hashable, @unchecked Sendable {
    let table: AggregateTable
    let row: Int

    var names: [String] { table.names }

    func aggregate(_ property: String) -> PropertyAggregate? {
        guard let k = table.names.firstIndex(of: property) else { return nil }
        return PropertyAggregate(stats: table.stats(row: row, k))
    }

    static func == (a: Self, b: Self) -> Bool {
        a.names == b.names && a.names.indices.allSatisfy { a.value($0) == b.value($0) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        for k in names.indices { hasher.combine(value(k)) }
    }

    private func value(_ k: Int) -> PropertyAggregate { PropertyAggregate(stats: table.stats(row: row, k)) }
}
