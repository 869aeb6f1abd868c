import Foundation
import GRDBSQLite
import Synchronization

/// The per-request key lookup: a read-only SQLite connection of its own with two prepared
/// statements, used under a lock by whichever thread asks. Each statement runs in autocommit mode,
/// so it sees every commit (another process's `meridian keys revoke` included); there is no
/// transaction, pool checkout or dispatch queue around it, which cost more than the lookup itself.
final class KeyLookup: Sendable {
    /// One key's columns as stored.
    struct Row {
        var tenant: String, role: String, name: String?, salt: [UInt8], hash: [UInt8], createdAt: Int64, revokedAt: Int64?
    }

    private struct Connection {
        var handle: OpaquePointer?
        var byID: OpaquePointer?
        var any: OpaquePointer?
    }

    private let path: String
    private let connection = Mutex<Connection>(Connection())

    init(path: String) {
        self.path = path
    }

    deinit {
        connection.withLock { connection in
            sqlite3_finalize(connection.byID)
            sqlite3_finalize(connection.any)
            sqlite3_close_v2(connection.handle)
        }
    }

    /// The key with `id`, or nil.
    func key(id: String) throws -> Row? {
        try connection.withLock { connection -> Row? in
            let statement = try prepared(&connection, \.byID, "SELECT tenant, role, name, salt, hash, createdAt, revokedAt FROM apiKey WHERE id = ?")
            defer { sqlite3_reset(statement) }
            _ = id.withCString { sqlite3_bind_text(statement, 1, $0, -1, Self.transient) }
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return nil }
            guard status == SQLITE_ROW else { throw Self.error(connection.handle) }
            return Row(
                tenant: Self.text(statement, 0) ?? "", role: Self.text(statement, 1) ?? "", name: Self.text(statement, 2),
                salt: Self.blob(statement, 3), hash: Self.blob(statement, 4), createdAt: sqlite3_column_int64(statement, 5),
                revokedAt: sqlite3_column_type(statement, 6) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 6))
        }
    }

    /// Whether the table holds any key.
    func anyKey() throws -> Bool {
        try connection.withLock { connection -> Bool in
            let statement = try prepared(&connection, \.any, "SELECT 1 FROM apiKey LIMIT 1")
            defer { sqlite3_reset(statement) }
            let status = sqlite3_step(statement)
            guard status == SQLITE_ROW || status == SQLITE_DONE else { throw Self.error(connection.handle) }
            return status == SQLITE_ROW
        }
    }

    /// Opens the connection and prepares `sql` on first use (after the migrations made the table).
    private func prepared(_ connection: inout Connection, _ slot: WritableKeyPath<Connection, OpaquePointer?>, _ sql: String) throws -> OpaquePointer? {
        if connection.handle == nil {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
                defer { sqlite3_close_v2(handle) }
                throw Self.error(handle)
            }
            // Short: callers hold a lock and a thread of the cooperative pool; a busy database answers 503, not a stall.
            sqlite3_busy_timeout(handle, 100)
            connection.handle = handle
        }
        if let statement = connection[keyPath: slot] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil) == SQLITE_OK else { throw Self.error(connection.handle) }
        connection[keyPath: slot] = statement
        return statement
    }

    private static func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: bytes)
    }

    private static func blob(_ statement: OpaquePointer?, _ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private static func error(_ handle: OpaquePointer?) -> any Error {
        NSError(domain: "SQLite", code: Int(sqlite3_errcode(handle)), userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(handle))])
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
