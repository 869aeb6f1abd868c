/// Failures of the database itself (not of the request).
public enum StorageError: Error, Hashable, Sendable {
    /// A row that does not map to a domain value.
    case corruptRow(table: String, id: String)
}
