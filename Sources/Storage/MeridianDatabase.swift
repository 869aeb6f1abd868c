public import GRDB
public import Timeline

/// Meridian's SQLite database: one writer per file, migrated on open.
///
/// `:memory:` opens a private in-memory database (tests); any other path a WAL-mode pool.
/// With WAL and `synchronous = NORMAL`, a committed transaction is in the WAL file before the
/// call returns, so an acknowledged write survives the process being killed (`kill -9`).
public struct MeridianDatabase: Sendable {
    /// Where `meridian serve` and `meridian import` keep their data unless told otherwise.
    public static let defaultPath = "./meridian.sqlite"

    let writer: any DatabaseWriter
    /// Where long polls of the annotation feed wait; every store on this database advances it.
    public let annotationFeed: SequenceSignal

    /// Wraps an open connection and migrates it.
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Migrations.migrator.migrate(writer)
        let latest = try writer.read { db in try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM annotationChange") }
        annotationFeed = SequenceSignal(latest: latest ?? 0)
    }

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `:memory:`.
    public static func open(path: String) throws -> MeridianDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 64 MiB of page cache per connection (default 2 MiB): bulk imports touch four indexes in random order.
            try db.execute(sql: "PRAGMA cache_size = -65536")
        }
        if path == ":memory:" {
            return try MeridianDatabase(DatabaseQueue(configuration: configuration))
        }
        return try MeridianDatabase(DatabasePool(path: path, configuration: configuration))
    }
}
