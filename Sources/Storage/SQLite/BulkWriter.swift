import Annotations
import Foundation
import GRDB
import GRDBSQLite

/// Rows of a bulk import written through SQLite's C API on GRDB's cached statements, inside
/// GRDB's write transaction: no argument arrays or existential boxes per column, which cost more
/// than SQLite itself at tens of thousands of rows.
struct BulkWriter {
    private let insertAnnotation: Statement
    private let insertChange: Statement
    private let nextSequence: Statement
    private let db: Database

    init(_ db: Database) throws {
        self.db = db
        insertAnnotation = try db.cachedStatement(sql: AnnotationRecord.insertSQL)
        insertChange = try db.cachedStatement(sql: AnnotationChangeRecord.insertSQL)
        nextSequence = try db.cachedStatement(sql: FeedCounter.nextSQL)
    }

    /// Inserts a new annotation row and its `created` entry in its tenant's feed; returns the entry's sequence.
    func insert(_ record: AnnotationRecord) throws -> Int64 {
        let row = insertAnnotation.sqliteStatement
        sqlite3_reset(row)
        bind(row, 1, record.tenant)
        bind(row, 2, record.id)
        bind(row, 3, record.externalId)
        sqlite3_bind_double(row, 4, record.latitude)
        sqlite3_bind_double(row, 5, record.longitude)
        bind(row, 6, record.title)
        bind(row, 7, record.subtitle)
        bind(row, 8, record.kind)
        bind(row, 9, record.clusteringIdentifier)
        sqlite3_bind_int64(row, 10, Int64(record.displayPriority))
        bind(row, 11, record.properties)
        sqlite3_bind_int64(row, 12, Int64(record.version))
        sqlite3_bind_int64(row, 13, record.createdAt)
        sqlite3_bind_int64(row, 14, record.updatedAt)
        try step(row, insertAnnotation)

        let counter = nextSequence.sqliteStatement
        sqlite3_reset(counter)
        bind(counter, 1, record.tenant)
        bind(counter, 2, FeedCounter.annotations)
        guard sqlite3_step(counter) == SQLITE_ROW else { try fail(counter, nextSequence) }
        let sequence = sqlite3_column_int64(counter, 0)
        sqlite3_reset(counter)

        let change = insertChange.sqliteStatement
        sqlite3_reset(change)
        bind(change, 1, record.tenant)
        sqlite3_bind_int64(change, 2, sequence)
        bind(change, 3, AnnotationChange.Kind.created.rawValue)
        bind(change, 4, record.id)
        sqlite3_bind_int64(change, 5, Int64(record.version))
        sqlite3_bind_int64(change, 6, record.createdAt)
        try step(change, insertChange)
        return sequence
    }

    private func bind(_ statement: SQLiteStatement, _ index: Int32, _ text: String?) {
        guard var text else { sqlite3_bind_null(statement, index); return }
        text.withUTF8 { bytes in
            // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
    }

    private func step(_ statement: SQLiteStatement, _ owner: Statement) throws {
        if sqlite3_step(statement) != SQLITE_DONE { try fail(statement, owner) }
    }

    private func fail(_ statement: SQLiteStatement, _ owner: Statement) throws -> Never {
        // Reset here, as GRDB does for its own steps, so the cached statement is usable again
        // by later writes after this transaction rolls back.
        let code = sqlite3_reset(statement)
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: owner.sql)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
