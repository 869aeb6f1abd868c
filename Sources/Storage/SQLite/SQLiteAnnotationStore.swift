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
            let write = AnnotationWrite.create(content, id: ids.next(), at: at)
            try apply(write, in: db)
            if let idempotencyKey {
                // A plain statement: GRDB's upsert reads back the rowid, which this table has not.
                try db.execute(
                    sql: "INSERT OR REPLACE INTO idempotencyKey (tenant, key, fingerprint, annotationId, createdAt) VALUES (?, ?, ?, ?, ?)",
                    arguments: [tenant.description, idempotencyKey.key, idempotencyKey.fingerprint, write.annotation.id.description, UnixMilliseconds.from(at)])
            }
            return try (write.annotation, false, record(write, in: db))
        }
        announce(sequence)
        return (annotation, replayed)
    }

    public func annotation(_ id: AnnotationID) async throws -> Annotation {
        try await database.writer.read { db in try stored(id, in: db).live() }
    }

    public func update(
        _ id: AnnotationID, expectedVersion: VersionCondition, _ change: @escaping @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation {
        let at = timestamp()
        let (annotation, sequence) = try await database.writer.write { db -> (Annotation, Int64?) in
            let write = try AnnotationWrite.update(try stored(id, in: db), expectedVersion: expectedVersion, at: at, change: change)
            return try (write.annotation, commit(write, in: db))
        }
        announce(sequence)
        return annotation
    }

    public func upsert(externalId: String, _ content: AnnotationContent, expectedVersion: VersionCondition) async throws -> (annotation: Annotation, status: WriteStatus) {
        precondition(content.externalId == externalId, "the content of an upsert carries its external id")
        let at = timestamp()
        let (annotation, status, sequence) = try await database.writer.write { db -> (Annotation, WriteStatus, Int64?) in
            let write = try AnnotationWrite.upsert(
                externalId: externalId, content, existing: try live(externalId: externalId, in: db), expectedVersion: expectedVersion, at: at,
                newID: ids.next)
            return try (write.annotation, write.status, commit(write, in: db))
        }
        announce(sequence)
        return (annotation, status)
    }

    public func delete(_ id: AnnotationID, expectedVersion: VersionCondition) async throws {
        let at = timestamp()
        let sequence = try await database.writer.write { db in
            try commit(AnnotationWrite.delete(try stored(id, in: db), expectedVersion: expectedVersion, at: at), in: db)
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

    /// Applies `write` and records its feed entry; returns the entry's sequence, nil when nothing changed.
    func commit(_ write: AnnotationWrite, in db: Database) throws -> Int64? {
        try apply(write, in: db)
        return try record(write, in: db)
    }

    /// Checks the external id `write` names, then makes its row change.
    func apply(_ write: AnnotationWrite, in db: Database) throws {
        if let externalId = write.externalIdToCheck { try write.admit(externalIdOwner: try owner(of: externalId, in: db)) }
        switch write.step {
        case .insert(let annotation): try AnnotationRecord(annotation, tenant: tenant).insert(db)
        case .update(let annotation): try AnnotationRecord(annotation, tenant: tenant).update(db)
        case .delete(let annotation, let at):
            _ = try AnnotationRecord.deleteOne(db, key: annotation.id.description)
            try AnnotationTombstoneRecord(
                tenant: tenant.description, id: annotation.id.description, version: AnnotationWrite.tombstoneVersion(of: annotation),
                deletedAt: UnixMilliseconds.from(at)
            ).insert(db)
        case .unchanged: break
        }
    }

    /// What the tenant holds under this id: another tenant's id is absent, as if it never existed.
    func stored(_ id: AnnotationID, in db: Database) throws -> StoredAnnotation {
        let key = [id.description, tenant.description]
        if let record = try AnnotationRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM annotation WHERE id = ? AND tenant = ?"), arguments: StatementArguments(key)) {
            return .live(try record.annotation())
        }
        if let tombstone = try AnnotationTombstoneRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM annotationTombstone WHERE id = ? AND tenant = ?"), arguments: StatementArguments(key)) {
            return .deleted(id, deletedAt: UnixMilliseconds.date(tombstone.deletedAt))
        }
        return .absent(id)
    }

    func live(externalId: String, in db: Database) throws -> Annotation? {
        try AnnotationRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM annotation WHERE tenant = ? AND externalId = ?"), arguments: [tenant.description, externalId]
        )?.annotation()
    }

    /// The first answer for a key seen within its lifetime; nil for a new (or expired) key.
    private func replay(_ key: IdempotencyKey, _ content: AnnotationContent, at: Date, in db: Database) throws -> Annotation? {
        let oldest = UnixMilliseconds.from(IdempotencyKey.oldestKept(at: at))
        try IdempotencyKeyRecord.filter(Column("createdAt") < oldest).deleteAll(db)
        let record = try IdempotencyKeyRecord.fetchOne(db, key: ["tenant": tenant.description, "key": key.key])
        return try AnnotationWrite.replay(
            key, stored: record.map { ($0.fingerprint, AnnotationID($0.annotationId), UnixMilliseconds.date($0.createdAt)) }, content: content)
    }

    /// The id of the tenant's live annotation with `externalId`, if any; a stored id that does not
    /// read as one is a corrupt row (never a free external id).
    private func owner(of externalId: String, in db: Database) throws -> AnnotationID? {
        guard let text = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM annotation WHERE tenant = ? AND externalId = ?"), arguments: [tenant.description, externalId]
        ) else { return nil }
        guard let id = AnnotationID(text) else { throw StorageError.corruptRow(table: AnnotationRecord.databaseTableName, id: text) }
        return id
    }

    /// Appends `write`'s feed entry, if it has one, and returns its sequence.
    func record(_ write: AnnotationWrite, in db: Database) throws -> Int64? {
        guard let change = write.change else { return nil }
        let sequence = try FeedCounter.next(tenant.description, FeedCounter.annotations, in: db)
        let insert = try db.cachedStatement(sql: AnnotationChangeRecord.insertSQL)
        try insert.execute(arguments: [tenant.description, sequence, change.kind.rawValue, change.id.description, change.version, UnixMilliseconds.from(change.at)])
        return sequence
    }
}
