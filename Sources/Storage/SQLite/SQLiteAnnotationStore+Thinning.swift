public import Annotations
import Foundation
import GRDB
import GRDBSQLite
import MapGeometry
public import AnnotationIndex
public import Timeline

/// What the thinning index reads: the live annotations' positions and classes, and what changed since.
extension SQLiteAnnotationStore: ThinningSource {
    private static let entryColumns = "id, latitude, longitude, kind, clusteringIdentifier, displayPriority, version"

    public var latestSequence: Int64 { feed.latest }

    public func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64) {
        let tenant: StatementArguments = [tenant.description]
        let (sequence, count, lowest, highest) = try await database.writer.read { db in
            (try Int64.fetchOne(db, sql: "SELECT coalesce(max(sequence), 0) FROM annotationChange WHERE tenant = ?", arguments: tenant) ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM annotation WHERE tenant = ?", arguments: tenant) ?? 0,
             try Int64.fetchOne(db, sql: "SELECT coalesce(min(rowid), 0) FROM annotation WHERE tenant = ?", arguments: tenant) ?? 0,
             try Int64.fetchOne(db, sql: "SELECT coalesce(max(rowid), -1) FROM annotation WHERE tenant = ?", arguments: tenant) ?? -1)
        }
        // Two halves by rowid on two reader connections at once (SQLite's C API per row: a million
        // rows through GRDB's Row cost more than SQLite itself). The halves may see later commits
        // than `sequence`; the follower re-reads everything after `sequence`, and re-applying a
        // change is harmless, so the index still ends up exact.
        let middle = lowest + (highest - lowest) / 2
        async let first = rows(from: lowest, through: middle, expected: count / 2)
        async let second = rows(from: middle + 1, through: highest, expected: count / 2)
        return (try await first + second, sequence)
    }

    private func rows(from lowest: Int64, through highest: Int64, expected: Int) async throws -> [ThinningEntry] {
        guard lowest <= highest else { return [] }
        return try await database.writer.read { db in
            let statement = try db.makeStatement(sql: "SELECT \(Self.entryColumns) FROM annotation WHERE rowid BETWEEN ? AND ? AND tenant = ?")
            try statement.setArguments([lowest, highest, tenant.description])
            // Rowid order is (nearly always) id order, which the index sorts by.
            return try Self.entries(statement, capacity: min(Int(highest - lowest + 1), expected + expected / 4))
        }
    }

    public func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64) {
        try await database.writer.read { db in
            let changed = try AnnotationChangeRecord.filter(Column("tenant") == tenant.description && Column("sequence") > sequence)
                .order(Column("sequence")).limit(limit).fetchAll(db)
            guard let through = changed.last?.sequence else { return ([], [], sequence) }
            let ids = Set(try changed.map { try $0.change().id })
            var upserts: [ThinningEntry] = []
            for slice in SQLiteBatch.slices(ids.map(\.description)) {
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                // Whole rows: the entries carry their numeric properties for the index's columns.
                let statement = try db.makeStatement(sql: "SELECT \(AnnotationRows.columns) FROM annotation WHERE tenant = ? AND id IN (\(marks))")
                try statement.setArguments(StatementArguments([tenant.description] + slice))
                upserts += try AnnotationRows.read(statement).map(ThinningEntry.init)
            }
            let live = Set(upserts.map(\.id))
            let removals = ids.filter { !live.contains($0) }.sorted()
            return (upserts, removals, through)
        }
    }

    public func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)] {
        try await database.writer.read { db in
            // The rows that have the property, their properties read by the rule every entry's are.
            // A text search narrows the rows (no JSON function reads the stored text: it is only
            // ever parsed by the reader every row goes through).
            let statement = try db.makeStatement(sql: "SELECT id, properties FROM annotation WHERE tenant = ? AND instr(properties, ?) > 0")
            try statement.setArguments([tenant.description, AnnotationRecord.memberPrefix(property)])
            return try AnnotationRows.map(statement) { row -> (AnnotationID, Double)? in
                guard let id = AnnotationID(utf8: AnnotationRows.bytes(row, 0)), let properties = AnnotationRecord.properties(AnnotationRows.text(row, 1) ?? "") else {
                    throw StorageError.corruptRow(table: AnnotationRecord.databaseTableName, id: AnnotationRows.text(row, 0) ?? "")
                }
                return ThinningEntry.numbers(of: properties)[property].map { (id, $0) }
            }.compactMap { $0 }
        }
    }

    public func annotations(ids: [AnnotationID]) async throws -> [AnnotationID: Annotation] {
        guard !ids.isEmpty else { return [:] }
        return try await database.writer.read { db in
            var found: [AnnotationID: Annotation] = [:]
            found.reserveCapacity(ids.count)
            for slice in SQLiteBatch.slices(ids.map(\.description)) {
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                let statement = try db.makeStatement(sql: "SELECT \(AnnotationRows.columns) FROM annotation WHERE tenant = ? AND id IN (\(marks))")
                try statement.setArguments(StatementArguments([tenant.description] + slice))
                for annotation in try AnnotationRows.read(statement) { found[annotation.id] = annotation }
            }
            return found
        }
    }

    private static func entries(_ statement: Statement, capacity: Int) throws -> [ThinningEntry] {
        try AnnotationRows.map(statement, capacity: capacity) { row in
            guard let id = AnnotationID(utf8: AnnotationRows.bytes(row, 0)) else {
                throw StorageError.corruptRow(table: AnnotationRecord.databaseTableName, id: AnnotationRows.text(row, 0) ?? "")
            }
            return ThinningEntry(
                id: id, coordinate: Coordinate(latitude: sqlite3_column_double(row, 1), longitude: sqlite3_column_double(row, 2)),
                kind: AnnotationRows.text(row, 3), clusteringIdentifier: AnnotationRows.text(row, 4),
                displayPriority: Int(sqlite3_column_int64(row, 5)), version: Int(sqlite3_column_int64(row, 6)))
        }
    }
}
