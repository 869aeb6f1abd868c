import Annotations
import GRDB
import GRDBSQLite
import MapGeometry
import Timeline
import WireJSON

/// Whole annotations read straight from SQLite's C API: a thousand rows through GRDB's Codable
/// records cost milliseconds that a query answering them in ~1 ms cannot pay. Reads the rows of
/// a statement that selects ``columns``; the same rows ``AnnotationRecord/annotation()`` decodes.
enum AnnotationRows {
    /// The columns a statement must select, in this order.
    static let columns = "id, externalId, latitude, longitude, title, subtitle, kind, clusteringIdentifier, displayPriority, properties, version, createdAt, updatedAt"

    /// Every row of `statement` (arguments set), as annotations.
    static func read(_ statement: Statement) throws -> [Annotation] {
        try map(statement, annotation)
    }

    /// Every row of `statement` (arguments set) through `transform`, which reads the current row's columns.
    static func map<T>(_ statement: Statement, capacity: Int = 0, _ transform: (OpaquePointer?) throws -> T) throws -> [T] {
        let row = statement.sqliteStatement
        // GRDB owns the statement; reset it so a failure mid-way leaves it reusable.
        defer { sqlite3_reset(row) }
        var values: [T] = []
        values.reserveCapacity(capacity)
        while true {
            let status = sqlite3_step(row)
            if status == SQLITE_DONE { return values }
            guard status == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: status)) }
            values.append(try transform(row))
        }
    }

    private static func annotation(_ row: OpaquePointer?) throws -> Annotation {
        guard let id = AnnotationID(utf8: bytes(row, 0)),
              let properties = JSONValueParser.parse(UnsafeRawBufferPointer(bytes(row, 9)))?.objectValue
        else { throw StorageError.corruptRow(table: AnnotationRecord.databaseTableName, id: text(row, 0) ?? "") }
        let content = AnnotationContent(
            externalId: text(row, 1),
            coordinate: Coordinate(latitude: sqlite3_column_double(row, 2), longitude: sqlite3_column_double(row, 3)),
            title: text(row, 4), subtitle: text(row, 5), kind: text(row, 6), clusteringIdentifier: text(row, 7),
            displayPriority: Int(sqlite3_column_int64(row, 8)), properties: properties)
        return Annotation(
            id: id, content: content, version: Int(sqlite3_column_int64(row, 10)),
            createdAt: UnixMilliseconds.date(sqlite3_column_int64(row, 11)), updatedAt: UnixMilliseconds.date(sqlite3_column_int64(row, 12)))
    }

    /// A text column's bytes (empty for NULL); valid until the next step.
    static func bytes(_ row: OpaquePointer?, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: sqlite3_column_text(row, column), count: Int(sqlite3_column_bytes(row, column)))
    }

    static func text(_ row: OpaquePointer?, _ column: Int32) -> String? {
        guard sqlite3_column_type(row, column) != SQLITE_NULL else { return nil }
        return String(decoding: bytes(row, column), as: UTF8.self)
    }
}
