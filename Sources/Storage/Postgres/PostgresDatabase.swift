public import Logging
public import PostgresNIO

/// Meridian's PostgreSQL database: one connection pool per process, migrated on open. Several
/// `meridian serve` instances share one database; the stores on it are under way (issue 20).
///
/// ```swift
/// let database = try await PostgresDatabase.open(PostgresLocation("postgres://meridian@127.0.0.1:5432/meridian")!)
/// defer { Task { await database.close() } }
/// ```
public final class PostgresDatabase: Sendable {
    public let location: PostgresLocation
    /// The pool; usable while the database is open.
    public let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger

    private init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
        let client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    /// Connects and applies the migrations the database lacks.
    public static func open(_ location: PostgresLocation, logger: Logger = Logger(label: "meridian.postgres")) async throws -> PostgresDatabase {
        let database = PostgresDatabase(location: location, logger: logger)
        do {
            try await PostgresMigrations.migrate(database.client, logger: logger)
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

    /// Stops the pool (its connections close).
    public func close() async {
        running.cancel()
        await running.value
    }
}
