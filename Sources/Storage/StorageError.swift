/// Failures of the database itself (not of the request).
public enum StorageError: Error, Hashable, Sendable {
    /// A row that does not map to a domain value.
    case corruptRow(table: String, id: String)
    /// A file given as an MBTiles tile set that has no `tiles` table.
    case notMBTiles(path: String)
}
