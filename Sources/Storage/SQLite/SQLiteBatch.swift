/// Values bound to one statement (`… IN (?, ?, …)`) come in slices of at most ``maxValues``:
/// SQLite's default limit on bound variables is 32 766. The one rule for every such query.
enum SQLiteBatch {
    static let maxValues = 10_000

    /// `values` in slices of at most ``maxValues``.
    static func slices<T>(_ values: [T]) -> [[T]] {
        stride(from: 0, to: values.count, by: maxValues).map { Array(values[$0..<min($0 + maxValues, values.count)]) }
    }
}
