public import Annotations
import Foundation
import GRDB
import MapGeometry
public import Timeline

extension SQLiteAnnotationStore {
    public func annotations(matching query: AnnotationQuery) async throws -> AnnotationPage {
        try await database.writer.read { db in
            var request = AnnotationRecord.filter(Column("tenant") == tenant.description).order(Column("id"))
            if let kind = query.kind { request = request.filter(Column("kind") == kind) }
            for bbox in [query.bbox, query.filter?.requiredBounds].compactMap({ $0 }) { request = request.inside(bbox) }
            var filling = PageFilling<Annotation>(limit: query.limit, reads: query.filter == nil ? .once : .chunks(of: AnnotationQuery.filterChunk))
            var after = query.after
            while let read = filling.nextRead {
                var chunk = request
                if let after { chunk = chunk.filter(Column("id") > after.description) }
                if let limit = read.limit { chunk = chunk.limit(limit) }
                let rows = try AnnotationRows.read(try chunk.select(sql: AnnotationRows.columns).makePreparedRequest(db).statement)
                filling.add(rows) { query.filter?.matches($0) ?? true ? $0 : nil }
                after = rows.last?.id
            }
            return filling.annotationPage
        }
    }

    public func importFeatures(
        chunks nextChunk: @escaping @Sendable () throws -> [ImportedFeature]?
    ) async throws -> [(id: AnnotationID, status: WriteStatus)] {
        let at = timestamp()
        let (results, sequence) = try await database.writer.write { db -> ([(id: AnnotationID, status: WriteStatus)], Int64?) in
            // Per chunk: the live rows it names in one query or two, then SQLite's C API per
            // new row (BulkWriter): a bulk import is tens of thousands of rows.
            let writer = try BulkWriter(db)
            var results: [(id: AnnotationID, status: WriteStatus)] = []
            var last: Int64?
            while let features = try nextChunk() {
                var match = ImportMatch(try live(named: ImportMatch<Row>.names(in: features), in: db)) { ($0.id, $0.record.externalId) }
                for feature in features {
                    let content = feature.content
                    if let row = match.existing(for: feature) {
                        if try row.record.holds(content) {
                            results.append((row.id, .unchanged))
                            continue
                        }
                        let write = AnnotationWrite.replace(try row.record.annotation(), with: content, at: at)
                        last = try commit(write, in: db) ?? last
                        match.wrote((write.annotation.id, AnnotationRecord(write.annotation, tenant: tenant)), replacing: row)
                        results.append((write.annotation.id, write.status))
                    } else {
                        // Its external id's owner is known: the match holds every live one of the chunk.
                        let annotation = AnnotationWrite.create(content, id: ids.next(), at: at).annotation
                        let record = AnnotationRecord(annotation, tenant: tenant)
                        last = try writer.insert(record)
                        match.wrote((annotation.id, record), replacing: nil)
                        results.append((annotation.id, .created))
                    }
                }
            }
            return (results, last)
        }
        announce(sequence)
        return results
    }

    /// A live row an import may write, with its id read.
    private typealias Row = (id: AnnotationID, record: AnnotationRecord)

    /// The live rows that have one of `names`' ids or external ids.
    private func live(named names: (ids: [AnnotationID], externalIds: [String]), in db: Database) throws -> [Row] {
        var rows: [AnnotationID: AnnotationRecord] = [:]
        for (column, keys) in [("id", names.ids.map(\.description)), ("externalId", names.externalIds)] {
            for chunk in SQLiteBatch.slices(keys) {
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                // Not cached: each slice length is another SQL text.
                let statement = try db.makeStatement(sql: "SELECT * FROM annotation WHERE tenant = ? AND \(column) IN (\(placeholders))")
                for record in try AnnotationRecord.fetchAll(statement, arguments: StatementArguments([tenant.description] + chunk)) {
                    guard let id = AnnotationID(record.id) else { throw StorageError.corruptRow(table: AnnotationRecord.databaseTableName, id: record.id) }
                    rows[id] = record
                }
            }
        }
        return rows.map { ($0.key, $0.value) }
    }

    public func changes(after sequence: Int64, limit: Int) async throws -> [AnnotationChange] {
        try await database.writer.read { db in
            try AnnotationChangeRecord
                .filter(Column("tenant") == tenant.description && Column("sequence") > sequence)
                .order(Column("sequence"))
                .limit(limit)
                .fetchAll(db)
                .map { try $0.change() }
        }
    }

    public func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await feed.wait(after: sequence, timeout: timeout)
    }

    /// The greatest annotation id ever stored, live or deleted: seed for the id generator.
    public func lastIssuedID() async throws -> AnnotationID? {
        try await database.writer.read { db in
            let text = try String.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT max(id) AS id FROM annotation UNION ALL SELECT max(id) FROM annotationTombstone)
                """)
            return text.flatMap { AnnotationID($0) }
        }
    }
}

extension QueryInterfaceRequest<AnnotationRecord> {
    /// Only rows whose point lies in `box` (edges included; across the antimeridian when west > east),
    /// read through the (tenant, longitude, latitude) index.
    func inside(_ box: BoundingBox) -> Self {
        let (longitude, latitude) = (Column("longitude"), Column("latitude"))
        let request = filter(latitude >= box.south && latitude <= box.north)
        return box.crossesAntimeridian ? request.filter(longitude >= box.west || longitude <= box.east)
            : request.filter((box.west...box.east).contains(longitude))
    }
}
