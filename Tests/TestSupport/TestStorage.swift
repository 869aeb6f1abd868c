import Foundation
import Logging
import PostgresNIO

/// The storage engines a parameterised test runs on: SQLite always, PostgreSQL when `make test`
/// started its throw-away server (scripts/with-postgres.sh names it in `MERIDIAN_POSTGRES_URL`).
public enum TestEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// The throw-away server's database, nil under a bare `swift test`.
    public static let postgresURL = ProcessInfo.processInfo.environment["MERIDIAN_POSTGRES_URL"]
    /// A database with PostGIS installed that fresh ones are copied from (creating the extension costs a second).
    public static let postgresTemplate = ProcessInfo.processInfo.environment["MERIDIAN_POSTGRES_TEMPLATE"]

    /// The engines this run has.
    public static let available: [TestEngine] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    /// The engine the contract suite runs on (`MERIDIAN_TEST_STORAGE`, default SQLite): the same
    /// suite runs once per engine.
    public static let contract = TestEngine(rawValue: ProcessInfo.processInfo.environment["MERIDIAN_TEST_STORAGE"] ?? "sqlite") ?? .sqlite

    /// A new, empty place for a test's data, as `--database` names it: `:memory:` (or a new
    /// temporary file when `persistent`, for tests that reopen it) on SQLite, a new database on PostgreSQL.
    public func freshPlace(persistent: Bool = false) async throws -> String {
        switch self {
        case .sqlite:
            return persistent ? FileManager.default.temporaryDirectory.appendingPathComponent("meridian-\(UUID().uuidString).sqlite").path : ":memory:"
        case .postgres:
            guard let url = Self.postgresURL, var components = URLComponents(string: url) else { throw Unavailable() }
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await Self.administer("CREATE DATABASE \(name)" + (Self.postgresTemplate.map { " TEMPLATE \($0)" } ?? ""), at: components)
            components.path = "/" + name
            return components.string ?? url
        }
    }

    struct Unavailable: Error {}

    /// Runs one statement on the server's own database (`CREATE DATABASE` cannot run in a transaction).
    private static func administer(_ sql: String, at components: URLComponents) async throws {
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "meridian",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let logger = Logger(label: "test.postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
