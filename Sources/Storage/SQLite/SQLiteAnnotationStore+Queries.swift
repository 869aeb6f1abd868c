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

    public func importContents(
        chunks nextChunk: @escaping @Sendable () throws -> [AnnotationContent]?
    ) async throws -> [(id: AnnotationID, status: WriteStatus)] {
        let at = timestamp()
        let (results, sequence) = try await database.writer.write { db -> ([(id: AnnotationID, status: WriteStatus)], Int64?) in
            // Per chunk: the live rows for its external ids in one query, then SQLite's C API per
            // new row (BulkWriter): a bulk import is tens of thousands of rows.
            let writer = try BulkWriter(db)
            var results: [(id: AnnotationID, status: WriteStatus)] = []
            var last: Int64?
            while let contents = try nextChunk() {
                // Features apply in order: a later one with an external id an earlier one wrote updates it.
                var existing = try live(externalIds: contents.compactMap(\.externalId), in: db)
                for content in contents {
                    if let externalId = content.externalId, let record = existing[externalId] {
                        if try record.holds(content), let id = AnnotationID(record.id) {
                            results.append((id, .unchanged))
                            continue
                        }
                        let write = AnnotationWrite.replace(try record.annotation(), with: content, at: at)
                        last = try commit(write, in: db) ?? last
                        existing[externalId] = AnnotationRecord(write.annotation, tenant: tenant)
                        results.append((write.annotation.id, write.status))
                    } else {
                        // Its external id's owner is known: `existing` holds every live one of the chunk.
                        let annotation = AnnotationWrite.create(content, id: ids.next(), at: at).annotation
                        let record = AnnotationRecord(annotation, tenant: tenant)
                        last = try writer.insert(record)
                        if let externalId = content.externalId { existing[externalId] = record }
                        results.append((annotation.id, .created))
                    }
                }
            }
            return (results, last)
        }
        announce(sequence)
        return results
    }

    /// The live rows that have one of `externalIds`, by external id.
    private func live(externalIds: [String], in db: Database) throws -> [String: AnnotationRecord] {
        var rows: [String: AnnotationRecord] = [:]
        for chunk in SQLiteBatch.slices(externalIds) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            // Not cached: each slice length is another SQL text.
            let statement = try db.makeStatement(sql: "SELECT * FROM annotation WHERE tenant = ? AND externalId IN (\(placeholders))")
            for record in try AnnotationRecord.fetchAll(statement, arguments: StatementArguments([tenant.description] + chunk)) {
                if let externalId = record.externalId { rows[externalId] = record }
            }
        }
        return rows
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
