public import Annotations
public import Foundation
import GRDB

/// ``AnnotationStore`` on SQLite: every method one write transaction, committed before it returns.
public struct SQLiteAnnotationStore: AnnotationStore {
    private let database: MeridianDatabase
    private let ids: any AnnotationIDSource
    private let now: @Sendable () -> Date

    /// A store over `database`, issuing ids from `ids` and times from `now`.
    public init(database: MeridianDatabase, ids: any AnnotationIDSource, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.ids = ids
        self.now = now
    }

    public func create(_ content: AnnotationContent) async throws -> Annotation {
        let at = timestamp()
        let annotation = Annotation(id: ids.next(), content: content, version: 1, createdAt: at, updatedAt: at)
        try await database.writer.write { db in
            try Self.checkExternalId(content.externalId, in: db, except: nil)
            try AnnotationRecord(annotation).insert(db)
            try Self.record(.created, annotation.id, version: 1, at: at, in: db)
        }
        return annotation
    }

    public func annotation(_ id: AnnotationID) async throws -> Annotation {
        try await database.writer.read { db in try Self.current(id, in: db) }
    }

    public func update(
        _ id: AnnotationID, expectedVersion: Int?, _ change: @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation {
        let at = timestamp()
        return try await database.writer.write { db in
            var annotation = try Self.current(id, in: db)
            try Self.check(expectedVersion, against: annotation)
            let content = try change(annotation.content)
            guard content != annotation.content else { return annotation }
            try Self.checkExternalId(content.externalId, in: db, except: id)
            annotation.content = content
            annotation.version += 1
            annotation.updatedAt = at
            try AnnotationRecord(annotation).update(db)
            try Self.record(.updated, id, version: annotation.version, at: at, in: db)
            return annotation
        }
    }

    public func delete(_ id: AnnotationID, expectedVersion: Int?) async throws {
        let at = timestamp()
        try await database.writer.write { db in
            let annotation = try Self.current(id, in: db)
            try Self.check(expectedVersion, against: annotation)
            _ = try AnnotationRecord.deleteOne(db, key: id.description)
            try AnnotationTombstoneRecord(id: id.description, version: annotation.version + 1, deletedAt: UnixMilliseconds.from(at)).insert(db)
            try Self.record(.deleted, id, version: annotation.version + 1, at: at, in: db)
        }
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

    /// The greatest annotation id ever stored, live or deleted: seed for the id generator.
    public func lastIssuedID() async throws -> AnnotationID? {
        try await database.writer.read { db in
            let text = try String.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT max(id) AS id FROM annotation UNION ALL SELECT max(id) FROM annotationTombstone)
                """)
            return text.flatMap(AnnotationID.init)
        }
    }

    /// Now, at the millisecond resolution the database keeps, so what a write returns equals
    /// what a later read returns.
    private func timestamp() -> Date {
        UnixMilliseconds.date(UnixMilliseconds.from(now()))
    }

    // MARK: - Inside a transaction

    private static func current(_ id: AnnotationID, in db: Database) throws -> Annotation {
        if let record = try AnnotationRecord.fetchOne(db, key: id.description) { return try record.annotation() }
        if let tombstone = try AnnotationTombstoneRecord.fetchOne(db, key: id.description) {
            throw AnnotationStoreError.gone(id, deletedAt: UnixMilliseconds.date(tombstone.deletedAt))
        }
        throw AnnotationStoreError.notFound(id)
    }

    private static func check(_ expectedVersion: Int?, against annotation: Annotation) throws {
        if let expectedVersion, expectedVersion != annotation.version {
            throw AnnotationStoreError.versionMismatch(annotation.id, current: annotation.version)
        }
    }

    private static func checkExternalId(_ externalId: String?, in db: Database, except id: AnnotationID?) throws {
        guard let externalId else { return }
        let owner = try String.fetchOne(db, sql: "SELECT id FROM annotation WHERE externalId = ?", arguments: [externalId])
        if let owner, owner != id?.description { throw AnnotationStoreError.externalIdTaken(externalId) }
    }

    private static func record(_ kind: AnnotationChange.Kind, _ id: AnnotationID, version: Int, at: Date, in db: Database) throws {
        var change = AnnotationChangeRecord(sequence: nil, kind: kind.rawValue, annotationId: id.description, version: version, at: UnixMilliseconds.from(at))
        try change.insert(db)
    }
}
