public import Annotations
public import Foundation
import AnnotationIndex
import Logging
import MapGeometry
import PostgresNIO
public import Timeline
import WireJSON

/// ``AnnotationStore`` on PostgreSQL, confined to one tenant, for several instances sharing one
/// database. Every write is one transaction that first locks the tenant's feed counter (so a
/// tenant's writes queue in one order on every instance, as on SQLite's one writer: `If-Match`
/// races have one winner, idempotency keys one first answer, external ids one owner), and the
/// feed is numbered from that counter without gaps.
public struct PostgresAnnotationStore: AnnotationStore {
    let database: PostgresDatabase
    let ids: any UUIDv7Source
    /// Whose annotations these are.
    public let tenant: TenantID
    /// The tenant's feed signal: this process's commits and other instances' notifications advance it.
    let feed: SequenceSignal
    private let now: @Sendable () -> Date
    var logger: Logger { database.logger }

    /// The feed's name in `feed_counter` (the same as SQLite's).
    static let feedName = "annotations"

    public init(database: PostgresDatabase, tenant: TenantID = .default, ids: any UUIDv7Source, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.tenant = tenant
        self.ids = ids
        self.now = now
        feed = database.feeds.signal(Self.feedName, tenant)
        _ = database.feeds.announcedChanges(tenant)  // this process follows the tenant: keep what its commits announce
    }

    /// `tenant`'s store on `database`, issuing ids after the greatest one it ever stored.
    public static func open(on database: PostgresDatabase, tenant: TenantID = .default) async throws -> PostgresAnnotationStore {
        let lastIssued = try await PostgresAnnotationStore(database: database, ids: UUIDv7Generator()).lastIssuedID()
        return PostgresAnnotationStore(database: database, tenant: tenant, ids: UUIDv7Generator(after: lastIssued))
    }

    public func create(_ content: AnnotationContent, idempotencyKey: IdempotencyKey?) async throws -> (annotation: Annotation, replayed: Bool) {
        let write = AnnotationWrite.create(content, id: ids.next(), at: timestamp())
        if idempotencyKey == nil, write.externalIdToCheck == nil {
            // Nothing to look up first: committed with the other creates that wait (group commit).
            return (try await creates.submit(write.annotation), false)
        }
        let (result, replayed) = try await self.write { connection, appender -> (Annotation, Bool) in
            if let idempotencyKey, let first = try await claim(idempotencyKey, for: write.annotation, on: connection) {
                return (first, true)
            }
            try await commit(write, on: connection, appender: &appender)
            return (write.annotation, false)
        }
        return (result, replayed)
    }

    public func annotation(_ id: AnnotationID) async throws -> Annotation {
        try await database.withConnection { [self] connection in try await stored(id, on: connection, locking: false).live() }
    }

    public func update(
        _ id: AnnotationID, expectedVersion: VersionCondition, _ change: @escaping @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation {
        let at = timestamp()
        return try await write { connection, appender in
            let write = try AnnotationWrite.update(try await stored(id, on: connection, locking: true), expectedVersion: expectedVersion, at: at, change: change)
            try await commit(write, on: connection, appender: &appender)
            return write.annotation
        }
    }

    public func upsert(externalId: String, _ content: AnnotationContent, expectedVersion: VersionCondition) async throws -> (annotation: Annotation, status: WriteStatus) {
        precondition(content.externalId == externalId, "the content of an upsert carries its external id")
        let at = timestamp()
        return try await write { connection, appender -> (Annotation, WriteStatus) in
            let write = try AnnotationWrite.upsert(
                externalId: externalId, content, existing: try await live(named: ([], [externalId]), on: connection).first,
                expectedVersion: expectedVersion, at: at, newID: ids.next)
            try await commit(write, on: connection, appender: &appender)
            return (write.annotation, write.status)
        }
    }

    public func delete(_ id: AnnotationID, expectedVersion: VersionCondition) async throws {
        let at = timestamp()
        try await write { connection, appender in
            let write = try AnnotationWrite.delete(try await stored(id, on: connection, locking: true), expectedVersion: expectedVersion, at: at)
            try await commit(write, on: connection, appender: &appender)
        }
    }

    /// This tenant's creates that need no lookup, committed a group at a time: those that arrived
    /// while the one before committed are one transaction whose one statement takes the tenant's
    /// counter, numbers their feed entries in order and inserts their rows, all stamped with the
    /// latest request time among them (each caller is answered the annotation as stored, after
    /// the commit; no store's clock is read here, so the per-tenant queue depends on none). Nothing
    /// else the statement touches can be held by another writer (the ids are new), so it cannot
    /// deadlock with the longer writes, and the counter row is held for that statement and the
    /// commit only: it commits on its own, and a query after it on its connection says the commit
    /// is done (``PostgresDatabase/committedAlone(_:)``: its rows are sent before the commit is
    /// durable, and a server stopped at that moment would have forgotten the row).
    private var creates: CommitQueue<Annotation, Annotation> {
        database.createQueue(tenant) { [self] in
            CommitQueue(alone: { StorageError.retryable($0) == nil }) { group in try await createTogether(group) }
        }
    }

    private func createTogether(_ group: [Annotation]) async throws -> [Annotation] {
        let at = group.count == 1 ? group[0].createdAt : group.map(\.createdAt).max() ?? timestamp()
        let annotations = group.map { Annotation(id: $0.id, content: $0.content, version: 1, createdAt: at, updatedAt: at) }
        let (tenant, logger) = (tenant, logger)
        let last = try await database.committedAlone { connection in
            try await PostgresAnnotationRow.insert(annotations, numbering: .counter(feed: Self.feedName), tenant: tenant, at: at, on: connection, logger: logger)
        }
        if let last { feed.advance(to: last) }
        return annotations
    }

    /// Now, at the millisecond resolution the database keeps.
    func timestamp() -> Date {
        UnixMilliseconds.date(UnixMilliseconds.from(now()))
    }

    /// Runs `body` in a transaction holding the tenant's feed counter; stores and announces the
    /// counter at the end, and wakes this process's readers once committed.
    func write<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection, inout FeedAppender) async throws -> Result) async throws -> Result {
        let (result, last) = try await database.transaction { connection in
            var appender = try await FeedAppender.lock(Self.feedName, tenant, on: connection, logger: logger)
            let result = try await body(connection, &appender)
            return (result, try await appender.finish(on: connection, logger: logger))
        }
        if let last { feed.advance(to: last) }
        return result
    }

    // MARK: - Inside a transaction

    /// Checks the external id `write` names, makes its row change and records its feed entry.
    func commit(_ write: AnnotationWrite, on connection: PostgresConnection, appender: inout FeedAppender) async throws {
        if let externalId = write.externalIdToCheck { try write.admit(externalIdOwner: try await owner(of: externalId, on: connection)) }
        switch write.step {
        case .insert(let annotation): try await PostgresAnnotationRow.insert(annotation, tenant: tenant, on: connection, logger: logger)
        case .update(let annotation): try await PostgresAnnotationRow.update(annotation, tenant: tenant, on: connection, logger: logger)
        case .delete(let annotation, let at):
            try await connection.query("""
                WITH gone AS (DELETE FROM annotation WHERE tenant = \(tenant.description) AND id = \(annotation.id.uuid))
                INSERT INTO annotation_tombstone (tenant, id, version, deleted_at)
                VALUES (\(tenant.description), \(annotation.id.uuid), \(AnnotationWrite.tombstoneVersion(of: annotation)),
                        \(unescaped: PostgresAnnotationRow.instant(at)))
                """, logger: logger)
        case .unchanged: return
        }
        try await record(write, on: connection, appender: &appender)
    }

    /// What the tenant holds under this id (its row locked for the transaction when `locking`).
    func stored(_ id: AnnotationID, on connection: PostgresConnection, locking: Bool) async throws -> StoredAnnotation {
        let rows = try await connection.query("""
            SELECT \(unescaped: PostgresAnnotationRow.columns) FROM annotation WHERE tenant = \(tenant.description) AND id = \(id.uuid)
            \(unescaped: locking ? "FOR UPDATE" : "")
            """, logger: logger)
        for try await row in rows.decode(PostgresAnnotationRow.Columns.self) { return .live(try PostgresAnnotationRow.annotation(row)) }
        let tombstones = try await connection.query("""
            SELECT \(unescaped: PostgresAnnotationRow.milliseconds("deleted_at")) FROM annotation_tombstone
            WHERE tenant = \(tenant.description) AND id = \(id.uuid)
            """, logger: logger)
        for try await deletedAt in tombstones.decode(Int64.self) { return .deleted(id, deletedAt: UnixMilliseconds.date(deletedAt)) }
        return .absent(id)
    }

    /// The live annotations that have one of `names`' ids or external ids.
    func live(named names: (ids: [AnnotationID], externalIds: [String]), on connection: PostgresConnection) async throws -> [Annotation] {
        guard !names.ids.isEmpty || !names.externalIds.isEmpty else { return [] }
        let rows = try await connection.query("""
            SELECT \(unescaped: PostgresAnnotationRow.columns) FROM annotation
            WHERE tenant = \(tenant.description) AND (external_id = ANY(\(names.externalIds)) OR id = ANY(\(names.ids.map(\.uuid))))
            """, logger: logger)
        var found: [Annotation] = []
        for try await row in rows.decode(PostgresAnnotationRow.Columns.self) {
            found.append(try PostgresAnnotationRow.annotation(row))
        }
        return found
    }

    /// Takes `key` for `annotation`, or returns the first answer of a key seen within its lifetime.
    private func claim(_ key: IdempotencyKey, for annotation: Annotation, on connection: PostgresConnection) async throws -> Annotation? {
        let at = annotation.createdAt
        try await connection.query("""
            DELETE FROM idempotency_key
            WHERE tenant = \(tenant.description) AND created_at < \(unescaped: PostgresAnnotationRow.instant(IdempotencyKey.oldestKept(at: at)))
            """, logger: logger)
        let rows = try await connection.query("""
            SELECT fingerprint, annotation_id, \(unescaped: PostgresAnnotationRow.milliseconds("created_at")) FROM idempotency_key
            WHERE tenant = \(tenant.description) AND key = \(key.key)
            """, logger: logger)
        for try await (fingerprint, id, createdAt) in rows.decode((String, UUID, Int64).self) {
            return try AnnotationWrite.replay(key, stored: (fingerprint, AnnotationID(uuid: id), UnixMilliseconds.date(createdAt)), content: annotation.content)
        }
        try await connection.query("""
            INSERT INTO idempotency_key (tenant, key, fingerprint, annotation_id, created_at)
            VALUES (\(tenant.description), \(key.key), \(key.fingerprint), \(annotation.id.uuid), \(unescaped: PostgresAnnotationRow.instant(at)))
            """, logger: logger)
        return nil
    }

    /// The id of the tenant's live annotation with `externalId`, if any.
    private func owner(of externalId: String, on connection: PostgresConnection) async throws -> AnnotationID? {
        let rows = try await connection.query("""
            SELECT id FROM annotation WHERE tenant = \(tenant.description) AND external_id = \(externalId)
            """, logger: logger)
        for try await owner in rows.decode(UUID.self) {
            // A stored id that is not a UUIDv7 is a corrupt row (never a free external id).
            guard let id = AnnotationID(uuid: owner) else { throw StorageError.corruptRow(table: "annotation", id: owner.uuidString.lowercased()) }
            return id
        }
        return nil
    }

    /// Appends `write`'s feed entry, if it has one, under the next number of the locked counter.
    func record(_ write: AnnotationWrite, on connection: PostgresConnection, appender: inout FeedAppender) async throws {
        guard let change = write.change else { return }
        let sequence = appender.next(announcing: change.kind == .deleted ? .removal(change.id) : .upsert(ThinningEntry(write.annotation)))
        try await connection.query("""
            INSERT INTO annotation_change (tenant, sequence, kind, annotation_id, version, at)
            VALUES (\(tenant.description), \(sequence), \(change.kind.rawValue), \(change.id.uuid), \(change.version), \(unescaped: PostgresAnnotationRow.instant(change.at)))
            """, logger: logger)
    }
}
