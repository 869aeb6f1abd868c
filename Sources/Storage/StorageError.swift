import GRDB
import NIOCore
import PostgresNIO

/// Failures of the database itself (not of the request).
public enum StorageError: Error, Hashable, Sendable {
    /// A row that does not map to a domain value.
    case corruptRow(table: String, id: String)
    /// A file given as an MBTiles tile set that has no `tiles` table.
    case notMBTiles(path: String)
    /// The database cannot be reached now (a lost connection, a restart); nothing was stored.
    case unavailable
    /// The connection broke while `COMMIT` was on its way: the write may or may not be stored.
    /// A retry with the same idempotency key (or If-Match) is safe.
    case commitOutcomeUnknown
    /// The database answered `COMMIT` with a rollback: nothing was stored.
    case rolledBack
    /// The disk (or the database's space) is full; nothing was stored.
    case full

    /// `error` as PostgreSQL's client raised it, seen as a lost connection when it is one: a
    /// socket error (reset, refused) under the client, or its older API's "connection closed".
    static func connectionLost(_ error: any Error) -> StorageError? {
        switch error {
        case is IOError, is ChannelError: .unavailable
        case PostgresError.connectionClosed: .unavailable
        default: nil
        }
    }

    /// The storage failure `error` is, when it is one a client may retry later: a lost or
    /// refused connection, a server shutting down or starting up, a full disk. Nil for the rest.
    public static func retryable(_ error: any Error) -> StorageError? {
        switch error {
        case let error as StorageError:
            return [.unavailable, .commitOutcomeUnknown, .rolledBack, .full].contains(error) ? error : nil
        case let error as PSQLError:
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
                return .unavailable
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                // 08: connection exception; 57P01–57P03: shutdown, crash, starting up; 53300: too many
                // connections (instances reconnecting at once); 55P03: a lock not granted within
                // lock_timeout; 53100: disk full.
                if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300", "55P03"].contains(state) { return .unavailable }
                return state == "53100" ? .full : nil
            default:
                return nil
            }
        case let error as PostgresError:
            // postgres-nio's older API (a query's future) says so when its connection closed.
            if case .connectionClosed = error { return .unavailable }
            return nil
        case let error as DatabaseError:
            return error.resultCode == .SQLITE_FULL ? .full : nil
        default:
            return nil
        }
    }
}
