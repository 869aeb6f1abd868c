public import Annotations
import Foundation
import GRDB
import MapGeometry

extension SQLiteAnnotationStore {
    public func annotations(matching query: AnnotationQuery) async throws -> AnnotationPage {
        try await database.writer.read { db in
            var request = AnnotationRecord.order(Column("id"))
            if let after = query.after { request = request.filter(Column("id") > after.description) }
            if let kind = query.kind { request = request.filter(Column("kind") == kind) }
            if let bbox = query.bbox {
                let longitude = Column("longitude")
                request = request.filter((bbox.south...bbox.north).contains(Column("latitude")))
                request = bbox.crossesAntimeridian
                    ? request.filter(longitude >= bbox.west || longitude <= bbox.east)
                    : request.filter((bbox.west...bbox.east).contains(longitude))
            }
            // One row more than the page tells whether there is a next page.
            if let limit = query.limit { request = request.limit(limit + 1) }
            var annotations = try request.fetchAll(db).map { try $0.annotation() }
            guard let limit = query.limit, annotations.count > limit else { return AnnotationPage(annotations: annotations, next: nil) }
            annotations.removeLast(annotations.count - limit)
            return AnnotationPage(annotations: annotations, next: annotations.last?.id)
        }
    }

    public func importContents(_ contents: [AnnotationContent]) async throws -> [(annotation: Annotation, status: WriteStatus)] {
        let at = timestamp()
        let (results, sequence) = try await database.writer.write { db -> ([(annotation: Annotation, status: WriteStatus)], Int64?) in
            var results: [(annotation: Annotation, status: WriteStatus)] = []
            results.reserveCapacity(contents.count)
            var last: Int64?
            for content in contents {
                if let externalId = content.externalId, let existing = try Self.live(externalId: externalId, in: db) {
                    let (annotation, sequence) = try Self.replace(existing, with: content, at: at, in: db)
                    results.append((annotation, sequence == nil ? .unchanged : .updated))
                    last = sequence ?? last
                } else {
                    let annotation = try insert(content, at: at, in: db)
                    results.append((annotation, .created))
                    last = try Self.record(.created, annotation.id, version: 1, at: at, in: db)
                }
            }
            return (results, last)
        }
        announce(sequence)
        return results
    }

    public func changes(after sequence: Int64, limit: Int) async throws -> [AnnotationChange] {
        try await database.writer.read { db in
            try AnnotationChangeRecord
                .filter(Column("sequence") > sequence)
                .order(Column("sequence"))
                .limit(limit)
                .fetchAll(db)
                .map { try $0.change() }
        }
    }

    public func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await database.annotationFeed.wait(after: sequence, timeout: timeout)
    }

    /// The greatest annotation id ever stored, live or deleted: seed for the id generator.
    public func lastIssuedID() async throws -> AnnotationID? {
        try await database.writer.read { db in
            let text = try String.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT max(id) AS id FROM annotation UNION ALL SELECT max(id) FROM annotationTombstone)
                """)
            return text.flatMap(AnnotationID.init)
        }
    }
}
