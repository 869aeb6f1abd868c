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
        let (sequence, span) = try await database.writer.read { [tenant] db in
            (try Int64.fetchOne(db, sql: "SELECT coalesce(max(sequence), 0) FROM annotationChange WHERE tenant = ?", arguments: [tenant.description]) ?? 0,
             try TenantRows(db, tenant: tenant))
        }
        // Two halves by rowid on two reader connections at once (SQLite's C API per row: a million
        // rows through GRDB's Row cost more than SQLite itself). The halves may see later commits
        // than `sequence`; the follower re-reads everything after `sequence`, and re-applying a
        // change is harmless, so the index still ends up exact.
        guard !span.isEmpty else { return ([], sequence) }
        let (first, second) = span.halves
        // The first half's array has room for the second's (and some writes since): one copy of
        // half the rows, not of all of them into a third array. Read in a function of their own,
        // so that no `async let` still holds the first array when the second is added to it (a
        // shared array is copied whole before it grows: every row, one by one).
        func halves() async throws -> ([ThinningEntry], [ThinningEntry]) {
            async let firstRows = rows(first, capacity: span.count + span.count / 16 + 64)
            async let secondRows = rows(second, capacity: min(second.width, span.count))
            return (try await firstRows, try await secondRows)
        }
        var (entries, rest) = try await halves()
        entries += rest
        rest = []
        return (entries, sequence)
    }

    private func rows(_ span: TenantRows, capacity: Int) async throws -> [ThinningEntry] {
        guard !span.isEmpty else { return [] }
        return try await database.writer.read { db in
            let statement = try db.makeStatement(sql: "SELECT \(Self.entryColumns) FROM annotation WHERE \(span.condition)")
            try statement.setArguments(span.arguments)
            // Rowid order is (nearly always) id order, which the index sorts by.
            return try Self.entries(statement, capacity: capacity)
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
        try await database.writer.read { [tenant] db in
            // The rows that have the property, their properties read by the rule every entry's are.
            // A text search narrows the rows (no JSON function reads the stored text: it is only
            // ever parsed by the reader every row goes through).
            let span = try TenantRows(db, tenant: tenant)
            let statement = try db.makeStatement(sql: "SELECT id, properties FROM annotation WHERE \(span.condition) AND instr(properties, ?) > 0")
            try statement.setArguments(span.arguments + [AnnotationRecord.memberPrefix(property)])
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

/// A tenant's annotation rows, for the reads that visit all of them: by rowid range when they fill
/// at least a quarter of their span (the table's pages in order: 1 M rows in 0.3 s), through the
/// tenant's index when other tenants' rows would be more than three quarters of the range. Without statistics SQLite answers
/// `tenant = ?` through a tenant index whatever the range, visiting the table in that index's
/// order: a page looked up per row, 2 s for the same million rows.
struct TenantRows {
    let tenant: TenantID
    /// The tenant's rows in the whole span (a half's may be more or fewer than half of them).
    let count: Int
    let lowest: Int64
    let highest: Int64
    /// Whether the range holds few enough other rows to read it in order.
    let scan: Bool

    init(_ db: Database, tenant: TenantID) throws {
        let arguments: StatementArguments = [tenant.description]
        let row = try Row.fetchOne(
            db, sql: "SELECT count(*), coalesce(min(rowid), 0), coalesce(max(rowid), -1) FROM annotation WHERE tenant = ?", arguments: arguments)
        self.init(tenant: tenant, count: row?[0] ?? 0, lowest: row?[1] ?? 0, highest: row?[2] ?? -1)
    }

    private init(tenant: TenantID, count: Int, lowest: Int64, highest: Int64, scan: Bool? = nil) {
        self.tenant = tenant
        self.count = count
        self.lowest = lowest
        self.highest = highest
        self.scan = scan ?? (Int64(count) * 4 >= highest - lowest + 1)
    }

    var isEmpty: Bool { lowest > highest }
    var width: Int { isEmpty ? 0 : Int(highest - lowest + 1) }

    /// The range in two, for two readers at once.
    var halves: (TenantRows, TenantRows) {
        let middle = lowest + (highest - lowest) / 2
        return (TenantRows(tenant: tenant, count: count, lowest: lowest, highest: middle, scan: scan),
                TenantRows(tenant: tenant, count: count, lowest: middle + 1, highest: highest, scan: scan))
    }

    /// The SQL condition for these rows (`+tenant` keeps SQLite off the tenant's indexes).
    var condition: String { "rowid BETWEEN ? AND ? AND \(scan ? "+tenant" : "tenant") = ?" }
    var arguments: StatementArguments { [lowest, highest, tenant.description] }
}
