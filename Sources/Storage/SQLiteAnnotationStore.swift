public import Annotations
public import Foundation
import GRDB
public import Timeline

/// ``AnnotationStore`` on SQLite, confined to one tenant: every read and write names the
/// tenant, so another tenant's ids are not found. Every write is one transaction, committed
/// before it returns.
public struct SQLiteAnnotationStore: AnnotationStore {
    let database: MeridianDatabase
    let ids: any UUIDv7Source
    /// Whose annotations these are.
    public let tenant: TenantID
    /// The tenant's feed signal (``MeridianDatabase/annotationFeed(for:)``).
    let feed: SequenceSignal
    private let now: @Sendable () -> Date

    /// `tenant`'s store over `database`, issuing ids from `ids` (one source for every tenant:
    /// ids are unique across tenants) and times from `now`.
    public init(database: MeridianDatabase, tenant: TenantID = .default, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.tenant = tenant
        self.ids = ids
        self.now = now
        feed = database.annotationFeed(for: tenant)
    }

    /// `tenant`'s store on `database`, issuing ids after the greatest one it ever stored.
    public static func open(on database: MeridianDatabase, tenant: TenantID = .default) async throws -> SQLiteAnnotationStore {
        let lastIssued = try await SQLiteAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
        return SQLiteAnnotationStore(database: database, tenant: tenant, ids: UUIDv7Generator(after: lastIssued))
    }

    /// The same database and id source, confined to `tenant`.
    public func forTenant(_ tenant: TenantID) -> SQLiteAnnotationStore {
        SQLiteAnnotationStore(database: database, tenant: tenant, ids: ids, now: now)
    }

    /// The store on the SQLite database at `path` (`:memory:` for one that lives with the process).
    public static func open(path: String) async throws -> SQLiteAnnotationStore {
        try await open(on: MeridianDatabase.open(path: path))
    }

    public func create(_ content: AnnotationContent, idempotencyKey: IdempotencyKey?) async throws -> (annotation: Annotation, replayed: Bool) {
        let at = timestamp()
        let (annotation, replayed, sequence) = try await database.writer.write { db -> (Annotation, Bool, Int64?) in
            if let idempotencyKey, let first = try replay(idempotencyKey, content, at: at, in: db) {
                return (first, true, nil)
            }
            let annotation = try insert(content, at: at, in: db)
            if let idempotencyKey {
                // A plain statement: GRDB's upsert reads back the rowid, which this table has not.
                try db.execute(
                    sql: "INSERT OR REPLACE INTO idempotencyKey (tenant, key, fingerprint, annotationId, createdAt) VALUES (?, ?, ?, ?, ?)",
                    arguments: [tenant.description, idempotencyKey.key, idempotencyKey.fingerprint, annotation.id.description, UnixMilliseconds.from(at)])
            }
            return (annotation, false, try record(.created, annotation.id, version: 1, at: at, in: db))
        }
        announce(sequence)
        return (annotation, replayed)
    }

    public func annotation(_ id: AnnotationID) async throws -> Annotation {
        try await database.writer.read { db in try current(id, in: db) }
    }

    public func update(
        _ id: AnnotationID, expectedVersion: VersionCondition, _ change: @escaping @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation {
        let at = timestamp()
        let (annotation, sequence) = try await database.writer.write { db -> (Annotation, Int64?) in
            let annotation = try current(id, in: db)
            try Self.check(expectedVersion, against: annotation)
            return try replace(annotation, with: change(annotation.content), at: at, in: db)
        }
        announce(sequence)
        return annotation
    }

    public func upsert(externalId: String, _ content: AnnotationContent, expectedVersion: VersionCondition) async throws -> (annotation: Annotation, status: WriteStatus) {
        precondition(content.externalId == externalId, "the content of an upsert carries its external id")
        let at = timestamp()
        let (annotation, status, sequence) = try await database.writer.write { db -> (Annotation, WriteStatus, Int64?) in
            if let existing = try live(externalId: externalId, in: db) {
                try Self.check(expectedVersion, against: existing)
                let (annotation, sequence) = try replace(existing, with: content, at: at, in: db)
                return (annotation, sequence == nil ? .unchanged : .updated, sequence)
            }
            if expectedVersion != .none { throw AnnotationStoreError.externalIdNotFound(externalId) }
            let annotation = try insert(content, at: at, in: db)
            return (annotation, .created, try record(.created, annotation.id, version: 1, at: at, in: db))
        }
        announce(sequence)
        return (annotation, status)
    }

    public func delete(_ id: AnnotationID, expectedVersion: VersionCondition) async throws {
        let at = timestamp()
        let sequence = try await database.writer.write { db in
            let annotation = try current(id, in: db)
            try Self.check(expectedVersion, against: annotation)
            _ = try AnnotationRecord.deleteOne(db, key: id.description)
            try AnnotationTombstoneRecord(
                tenant: tenant.description, id: id.description, version: annotation.version + 1, deletedAt: UnixMilliseconds.from(at)
            ).insert(db)
            return try record(.deleted, id, version: annotation.version + 1, at: at, in: db)
        }
        announce(sequence)
    }

    /// Now, at the millisecond resolution the database keeps, so what a write returns equals
    /// what a later read returns.
    func timestamp() -> Date {
        UnixMilliseconds.date(UnixMilliseconds.from(now()))
    }

    /// Wakes long polls once a transaction that wrote feed entries has committed.
    func announce(_ sequence: Int64?) {
        if let sequence { feed.advance(to: sequence) }
    }

    // MARK: - Inside a transaction

    /// Inserts `content` as a new annotation, version 1, under a fresh id.
    func insert(_ content: AnnotationContent, at: Date, in db: Database) throws -> Annotation {
        try checkExternalId(content.externalId, in: db, except: nil)
        let annotation = Annotation(id: ids.next(), content: content, version: 1, createdAt: at, updatedAt: at)
        try AnnotationRecord(annotation, tenant: tenant).insert(db)
        return annotation
    }

    /// Gives `annotation` new content; returns the feed sequence, or nil when nothing changed.
    func replace(_ annotation: Annotation, with content: AnnotationContent, at: Date, in db: Database) throws -> (Annotation, Int64?) {
        guard !content.isIdentical(to: annotation.content) else { return (annotation, nil) }
        try checkExternalId(content.externalId, in: db, except: annotation.id)
        var annotation = annotation
        annotation.content = content
        annotation.version += 1
        annotation.updatedAt = at
        try AnnotationRecord(annotation, tenant: tenant).update(db)
        return (annotation, try record(.updated, annotation.id, version: annotation.version, at: at, in: db))
    }

    /// The tenant's annotation with this id; another tenant's id is not found, as if it never existed.
    func current(_ id: AnnotationID, in db: Database) throws -> Annotation {
        let key = [id.description, tenant.description]
        if let record = try AnnotationRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM annotation WHERE id = ? AND tenant = ?"), arguments: StatementArguments(key)) {
            return try record.annotation()
        }
        if let tombstone = try AnnotationTombstoneRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM annotationTombstone WHERE id = ? AND tenant = ?"), arguments: StatementArguments(key)) {
            throw AnnotationStoreError.gone(id, deletedAt: UnixMilliseconds.date(tombstone.deletedAt))
        }
        throw AnnotationStoreError.notFound(id)
    }

    func live(externalId: String, in db: Database) throws -> Annotation? {
        try AnnotationRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM annotation WHERE tenant = ? AND externalId = ?"), arguments: [tenant.description, externalId]
        )?.annotation()
    }

    /// The first answer for a key seen within its lifetime; nil for a new (or expired) key.
    private func replay(_ key: IdempotencyKey, _ content: AnnotationContent, at: Date, in db: Database) throws -> Annotation? {
        let oldest = UnixMilliseconds.from(at.addingTimeInterval(-IdempotencyKey.lifetime))
        try IdempotencyKeyRecord.filter(Column("createdAt") < oldest).deleteAll(db)
        guard let record = try IdempotencyKeyRecord.fetchOne(db, key: ["tenant": tenant.description, "key": key.key]) else { return nil }
        guard record.fingerprint == key.fingerprint, let id = AnnotationID(record.annotationId) else {
            throw AnnotationStoreError.idempotencyKeyReused(key.key)
        }
        let createdAt = UnixMilliseconds.date(record.createdAt)
        return Annotation(id: id, content: content, version: 1, createdAt: createdAt, updatedAt: createdAt)
    }

    static func check(_ expectedVersion: VersionCondition, against annotation: Annotation) throws {
        if !expectedVersion.admits(annotation.version) {
            throw AnnotationStoreError.versionMismatch(annotation.id, current: annotation.version)
        }
    }

    private func checkExternalId(_ externalId: String?, in db: Database, except id: AnnotationID?) throws {
        guard let externalId else { return }
        let owner = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM annotation WHERE tenant = ? AND externalId = ?"), arguments: [tenant.description, externalId])
        if let owner, owner != id?.description { throw AnnotationStoreError.externalIdTaken(externalId) }
    }

    /// Appends to the tenant's feed and returns the entry's sequence.
    func record(_ kind: AnnotationChange.Kind, _ id: AnnotationID, version: Int, at: Date, in db: Database) throws -> Int64 {
        let sequence = try FeedCounter.next(tenant.description, FeedCounter.annotations, in: db)
        let insert = try db.cachedStatement(sql: AnnotationChangeRecord.insertSQL)
        try insert.execute(arguments: [tenant.description, sequence, kind.rawValue, id.description, version, UnixMilliseconds.from(at)])
        return sequence
    }
}
