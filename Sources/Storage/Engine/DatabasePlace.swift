public import Foundation
public import Logging

/// What `--database` names, and the engine it opens: a `postgres://` URL opens ``PostgresEngine``,
/// anything else is a SQLite file for ``SQLiteEngine``. The one place the engine is chosen.
public enum DatabasePlace {
    /// Why a `--database` value cannot be opened.
    public struct OpenError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `place` as output may show it: a database URL without its password.
    public static func displayName(_ place: String) -> String {
        guard PostgresLocation.isPostgres(place) else { return place }
        return PostgresLocation(place)?.description ?? "a malformed database URL"
    }

    /// Opens `place`: a `postgres://user@host:port/database` URL, or a SQLite file path (`:memory:` for none).
    /// - Parameter onCommit: told how long each SQLite write transaction's COMMIT took, in seconds.
    public static func open(
        _ place: String, logger: Logger = Logger(label: "meridian.storage"), onCommit: (@Sendable (TimeInterval) -> Void)? = nil
    ) async throws -> any StorageEngine {
        guard PostgresLocation.isPostgres(place) else { return SQLiteEngine(try MeridianDatabase.open(path: place, onCommit: onCommit)) }
        guard let location = PostgresLocation(place) else {
            throw OpenError(description: "--database is not a database URL: postgres://user[:password]@host[:port]/database")
        }
        do {
            return PostgresEngine(try await PostgresDatabase.open(location, logger: logger))
        } catch {
            // postgres-nio's own description hides the reason (it may hold secrets); the reflection names it.
            throw OpenError(description: "could not open the PostgreSQL database \(location): \(String(String(reflecting: error).prefix(400)))")
        }
    }
}
