import Foundation
import Annotations
import Synchronization
public import Logging
public import PostgresNIO
public import Timeline

/// Meridian's PostgreSQL database: one connection pool per process, migrated on open, and one
/// more connection that listens for other instances' commits (``PostgresFeeds``). Several
/// `meridian serve` instances share one database.
///
/// ```swift
/// let database = try await PostgresDatabase.open(PostgresLocation("postgres://meridian@127.0.0.1:5432/meridian")!)
/// defer { Task { await database.close() } }
/// ```
public final class PostgresDatabase: Sendable {
    public let location: PostgresLocation
    /// The pool; usable while the database is open.
    public let client: PostgresClient
    /// Where this process's readers wait for each tenant's feeds, advanced by its own commits and by `NOTIFY`.
    let feeds: PostgresFeeds
    private let running: Task<Void, Never>
    private let listening: Task<Void, Never>
    /// Per tenant, the annotation creates that wait to be committed together (``PostgresAnnotationStore``).
    private let creates = Mutex<[TenantID: CommitQueue<Annotation, Annotation>]>([:])
    let logger: Logger

    private init(location: PostgresLocation, client: PostgresClient, running: Task<Void, Never>, logger: Logger) {
        self.location = location
        self.logger = logger
        self.client = client
        self.running = running
        let feeds = PostgresFeeds()
        self.feeds = feeds
        listening = Task { await feeds.listen(on: client, logger: logger) }
    }

    /// `tenant`'s queue of annotation creates, made by `make` the first time: one per tenant and
    /// process, whichever store value asks.
    func createQueue(_ tenant: TenantID, make: () -> CommitQueue<Annotation, Annotation>) -> CommitQueue<Annotation, Annotation> {
        creates.withLock { queues in
            if let queue = queues[tenant] { return queue }
            let queue = make()
            queues[tenant] = queue
            return queue
        }
    }

    /// Connects, applies the migrations the database lacks, and starts listening for other instances' commits.
    public static func open(_ location: PostgresLocation, logger: Logger = Logger(label: "meridian.postgres")) async throws -> PostgresDatabase {
        let client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        // Let the pool's run loop start before the first lease (postgres-nio warns otherwise).
        await Task.yield()
        do {
            try await PostgresMigrations.migrate(client, logger: logger)
        } catch {
            running.cancel()
            await running.value
            throw error
        }
        let database = PostgresDatabase(location: location, client: client, running: running, logger: logger)
        do {
            // This month's and the coming months' partitions exist before the first write (failing
            // that, rows go to the default partition, and the retention sweep tries again).
            do {
                try await PostgresHistory.prepare(database, now: Instant(secondsSince1970: Date().timeIntervalSince1970))
            } catch {
                logger.warning("could not make the coming months' partitions of fixes and events", metadata: ["error": "\(String(reflecting: error))"])
            }
            try await database.feeds.refresh(from: client, logger: logger)
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// The names of the migration steps the database holds, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query("SELECT name FROM meridian_migration ORDER BY applied_at, name", logger: logger).decode(String.self) {
            names.append(name)
        }
        return names
    }

    /// Every tenant that holds data or a key, and `default`: the tenants to load before serving.
    public func knownTenants() async throws -> [TenantID] {
        var tenants: Set<TenantID> = [.default]
        for try await name in try await client.query("SELECT tenant FROM feed_counter UNION SELECT tenant FROM api_key", logger: logger).decode(String.self) {
            if let tenant = TenantID(name) { tenants.insert(tenant) }
        }
        return tenants.sorted()
    }

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled
    /// back when it throws, and the error `body` threw is the one this throws. It returns only
    /// once PostgreSQL answered `COMMIT` with `COMMIT`: a commit answered `ROLLBACK` throws
    /// ``StorageError/rolledBack``, one whose connection broke ``StorageError/commitOutcomeUnknown``.
    /// - Parameter isolation: the transaction's mode (`BEGIN ISOLATION LEVEL …`); nil for READ COMMITTED.
    func transaction<Result: Sendable>(isolation: String? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.abandoningIfClosed { committing in
                try await connection.query(PostgresQuery(unsafeSQL: isolation.map { "BEGIN ISOLATION LEVEL \($0)" } ?? "BEGIN"), logger: logger)
                let result: Result
                do {
                    result = try await body(connection)
                } catch {
                    await Self.rollBack(connection, logger: logger)
                    throw error
                }
                committing.set()
                let tag: String
                do {
                    tag = try await connection.query("COMMIT").get().metadata.command
                } catch {
                    let lost = StorageError.retryable(error) == .unavailable || StorageError.connectionLost(error) != nil
                    throw lost ? StorageError.commitOutcomeUnknown : error
                }
                guard tag == "COMMIT" else { throw StorageError.rolledBack }
                return result
            }
        }
    }

    /// Runs `body`, one statement committed on its own (no `BEGIN` or `COMMIT` round trip, and the
    /// row locks it takes are held for its execution and commit only, not for a round trip to this
    /// process), then a query on the same connection that PostgreSQL answers only after that commit:
    /// postgres-nio hands back a statement's rows at its `CommandComplete`, which PostgreSQL sends
    /// before the implicit commit is durable, and postgres-nio sends the next query only once
    /// PostgreSQL is ready for it, after the commit. So an error PostgreSQL answers the statement
    /// with stored nothing (it is thrown as it is); one it answers the second query with came after
    /// the commit (the result stands); a connection lost, or a failure of the commit itself (which
    /// postgres-nio meets as an unexpected message and closes the connection), leaves the outcome
    /// unknown (``StorageError/commitOutcomeUnknown``).
    func committedAlone<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.abandoningIfClosed { committing in
                committing.set()
                func answeredByTheServer(_ error: any Error) -> Bool { (error as? PSQLError)?.code == .server }
                let result: Result
                do { result = try await body(connection) } catch {
                    throw answeredByTheServer(error) ? error : StorageError.commitOutcomeUnknown
                }
                do { try await connection.query("SELECT 1", logger: logger) } catch {
                    guard answeredByTheServer(error) else { throw StorageError.commitOutcomeUnknown }
                }
                return result
            }
        }
    }

    /// Runs `body` on a pooled connection outside a transaction, abandoned like a transaction's
    /// work when its connection closes under it (``PostgresConnection/abandoningIfClosed(_:)``).
    func withConnection<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            try await connection.abandoningIfClosed { _ in try await body(connection) }
        }
    }

    /// Longest a `ROLLBACK` may take before its connection is closed instead.
    static let rollbackLimit: Duration = .seconds(5)

    /// Rolls back the transaction on `connection`, unless the connection is gone (the server
    /// rolled it back itself): a `ROLLBACK` written to a connection that has just closed is never
    /// answered, and would hold the caller (and any lock it holds) forever.
    private static func rollBack(_ connection: PostgresConnection, logger: Logger) async {
        guard !connection.isClosed else { return }
        let rollback = Task { _ = try? await connection.query("ROLLBACK", logger: logger) }
        if await !rollback.ends(within: rollbackLimit) {
            logger.warning("ROLLBACK was not answered within \(rollbackLimit); closing its connection")
            try? await connection.close()
        }
    }

    /// Answers when the database does (readiness).
    public func ping() async throws {
        try await client.query("SELECT 1", logger: logger)
    }

    /// How long ``close()`` waits for the pool to stop once asked.
    static let poolStopLimit: Duration = .seconds(5)

    /// Stops listening and stops the pool (its connections close). Call it once nothing else
    /// uses the database: every commit has returned by then, so a pool that does not report its
    /// end in time is left to the process's exit (logged) rather than holding shutdown up.
    /// postgres-nio 1.33.2's pool now and then never returns from `run()` after its task is
    /// cancelled, with every connection closed (seen under load in the PostgreSQL test pass).
    public func close() async {
        // The queues' commits hold store values that hold this database.
        creates.withLock { $0.removeAll() }
        listening.cancel()
        await listening.value
        running.cancel()
        if await !running.ends(within: Self.poolStopLimit) {
            logger.warning("the PostgreSQL pool had not stopped \(Self.poolStopLimit) after it was asked to; not waiting for it longer")
        }
    }
}
