import Foundation
public import PostgresNIO

/// Where a PostgreSQL database is: `postgres://user[:password]@host[:port]/database` (also
/// `postgresql://`), as `--database` and `MERIDIAN_DATABASE` name it. TLS is not spoken yet:
/// the server and its database share a trusted network (loopback in tests).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    /// PostgreSQL's own port when the URL names none.
    public static let defaultPort = 5432

    /// Whether `text` names a PostgreSQL database rather than a SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Nil when `text` is not such a URL, or lacks a user, a host or a database.
    public init?(_ text: String) {
        guard Self.isPostgres(text), let components = URLComponents(string: text),
              let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty else { return nil }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { return nil }
        self.host = host
        self.port = components.port ?? Self.defaultPort
        self.user = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
    }

    /// The URL without its password.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// A transaction left idle this long (its instance stalled or lost its network) is ended by
    /// the server, so the counter rows it held do not stop every other instance's writes.
    static let idleTransactionTimeout = "60s"

    /// Longest a statement waits for a row lock (a tenant's counter held by a stalled writer):
    /// less than the request limit, so the request answers 503 (SQLSTATE 55P03) in time.
    static let lockTimeout = "20s"

    var configuration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        configuration.options.additionalStartupParameters = [
            ("idle_in_transaction_session_timeout", Self.idleTransactionTimeout), ("lock_timeout", Self.lockTimeout),
        ]
        return configuration
    }
}

/// What PostgreSQL's `text` can hold: anything but U+0000. A key with one names no row.
enum PostgresText {
    static func holds(_ text: String) -> Bool { !text.utf8.contains(0) }
}
