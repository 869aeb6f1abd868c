public import Foundation
public import GRDB
import Synchronization
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
    /// The per-request key lookup on a connection of its own (nil for an in-memory database,
    /// which only its writer can see).
    let keyLookup: KeyLookup?
    /// Per tenant, where long polls of the annotation feed wait; every store on this database advances it.
    private let annotationFeeds: FeedSignals
    /// Checkpoints the WAL off the writer (nil for an in-memory database).
    private let checkpointer: Checkpointer?

    /// Wraps an open connection and migrates it; `path` names the file for the key lookup
    /// connection (nil: the writer serves key lookups too, as an in-memory database must).
    init(_ writer: any DatabaseWriter, path: String?) throws {
        self.writer = writer
        keyLookup = path.map(KeyLookup.init)
        checkpointer = path.flatMap(Checkpointer.init)
        try Migrations.migrator.migrate(writer)
        let counters = try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT tenant, last FROM feedCounter WHERE feed = ?", arguments: [FeedCounter.annotations])
        }
        var feeds: [TenantID: SequenceSignal] = [:]
        for row in counters {
            guard let tenant = TenantID(row["tenant"]) else { throw StorageError.corruptRow(table: "feedCounter", id: String(describing: row["tenant"] as String?)) }
            feeds[tenant] = SequenceSignal(latest: row["last"])
        }
        annotationFeeds = FeedSignals(feeds)
    }

    /// Every tenant that holds data or a key, and `default`: the tenants to load before serving.
    public func knownTenants() async throws -> [TenantID] {
        let names = try await writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT tenant FROM feedCounter UNION SELECT tenant FROM subscription UNION SELECT tenant FROM device
                UNION SELECT tenant FROM apiKey UNION SELECT tenant FROM webhook UNION SELECT 'default'
                """)
        }
        return names.compactMap(TenantID.init)
    }

    /// The names of the migrations the database holds, in the order they were applied.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try Migrations.migrator.appliedMigrations(db) }
    }

    /// Moves everything in the WAL into the database file and empties the WAL (graceful shutdown,
    /// before a file copy); waits for readers to finish.
    public func checkpoint() throws {
        checkpointer?.stop()
        try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Copies the whole database into a new file at `path` with SQLite's online backup API: a
    /// consistent snapshot, taken while writers go on.
    public func backup(to path: String) throws {
        try writer.backup(to: DatabaseQueue(path: path))
    }

    /// The signal of `tenant`'s annotation feed (a tenant that never wrote starts at 0).
    public func annotationFeed(for tenant: TenantID) -> SequenceSignal {
        annotationFeeds.signal(for: tenant)
    }

    /// Bytes of the database file SQLite maps into memory for reading.
    static let mmapSize = 1 << 30

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `:memory:`.
    /// - Parameter onCommit: told how long each write transaction's COMMIT took, in seconds.
    public static func open(path: String, onCommit: (@Sendable (TimeInterval) -> Void)? = nil) throws -> MeridianDatabase {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 64 MiB of page cache per connection (default 2 MiB): bulk imports touch four indexes in random order.
            try db.execute(sql: "PRAGMA cache_size = -65536")
            // Reads straight from a memory map of the file (up to 1 GiB) instead of a copy per page
            // read: a query's thousand row lookups by key spend half their time in those copies.
            try db.execute(sql: "PRAGMA mmap_size = \(Self.mmapSize)")
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Checkpointer.writerBackstopPages)") }
            // Timed from SQLite's commit hook to the end of the COMMIT, not by tracing every
            // statement (reading a traced statement's SQL back took a fifth of the ingest writer's time).
            if let onCommit, !db.configuration.readonly { db.add(transactionObserver: CommitTimer(onCommit), extent: .databaseLifetime) }
        }
        if path == ":memory:" {
            return try MeridianDatabase(DatabaseQueue(configuration: configuration), path: nil)
        }
        return try MeridianDatabase(DatabasePool(path: path, configuration: configuration), path: path)
    }
}

/// One ``SequenceSignal`` per tenant, made on first use.
final class FeedSignals: Sendable {
    private let signals: Mutex<[TenantID: SequenceSignal]>

    init(_ signals: [TenantID: SequenceSignal]) {
        self.signals = Mutex(signals)
    }

    func signal(for tenant: TenantID) -> SequenceSignal {
        signals.withLock { signals in
            if let signal = signals[tenant] { return signal }
            let signal = SequenceSignal(latest: 0)
            signals[tenant] = signal
            return signal
        }
    }
}

/// Tells how long each write transaction's commit took: from SQLite's commit hook (the changes are
/// final) until the commit is done (in the WAL). Observes no row changes, so it costs nothing per row.
private final class CommitTimer: TransactionObserver, @unchecked Sendable {
    // Touched only on the connection's own queue, one transaction at a time.
    private var started: ContinuousClock.Instant?
    private let report: @Sendable (TimeInterval) -> Void

    init(_ report: @escaping @Sendable (TimeInterval) -> Void) {
        self.report = report
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseWillCommit() throws { started = .now }

    func databaseDidCommit(_ db: Database) {
        guard let started else { return }
        self.started = nil
        let elapsed = ContinuousClock.now - started
        report(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    func databaseDidRollback(_ db: Database) { started = nil }
}
