public import Annotations
import Foundation
import MapGeometry
import PostgresNIO
public import AnnotationIndex
public import Timeline

extension PostgresAnnotationStore {
    public func annotations(matching query: AnnotationQuery) async throws -> AnnotationPage {
        let boxes = [query.bbox, query.filter?.requiredBounds].compactMap { $0 }.map(Self.inside).joined()
        var filling = PageFilling<Annotation>(limit: query.limit, reads: query.filter == nil ? .once : .chunks(of: AnnotationQuery.filterChunk))
        var after = query.after
        while let read = filling.nextRead {
            try Task.checkCancellation()
            let (tenant, logger, kind, start) = (tenant, logger, query.kind, after?.uuid ?? Self.beforeEveryID)
            let rows = try await database.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT \(unescaped: PostgresAnnotationRow.columns) FROM annotation
                    WHERE tenant = \(tenant.description) AND (\(kind)::text IS NULL OR kind = \(kind))
                      AND id > \(start) \(unescaped: boxes)
                    ORDER BY id LIMIT \(unescaped: read.limit.map(String.init) ?? "ALL")
                    """, logger: logger)
                var read: [Annotation] = []
                for try await row in rows.decode(PostgresAnnotationRow.Columns.self) { read.append(try PostgresAnnotationRow.annotation(row)) }
                return read
            }
            filling.add(rows) { query.filter?.matches($0) ?? true ? $0 : nil }
            after = rows.last?.id
        }
        return filling.annotationPage
    }

    /// The uuid below every id.
    static let beforeEveryID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// SQL that keeps the rows inside `box` (edges included; across the antimeridian when west >
    /// east). Literal doubles: Swift writes the shortest text that reads back as the same double.
    static func inside(_ box: BoundingBox) -> String {
        let longitude = box.crossesAntimeridian ? "(longitude >= \(box.west) OR longitude <= \(box.east))"
            : "longitude BETWEEN \(box.west) AND \(box.east)"
        return " AND latitude BETWEEN \(box.south) AND \(box.north) AND \(longitude)"
    }

    public func importFeatures(
        chunks nextChunk: @escaping @Sendable () throws -> [ImportedFeature]?
    ) async throws -> [(id: AnnotationID, status: WriteStatus)] {
        let at = timestamp()
        let results = try await write { connection, appender -> [ImportResult] in
            var results: [ImportResult] = []
            while let features = try nextChunk() {
                var match = ImportMatch(try await live(named: ImportMatch<Annotation>.names(in: features), on: connection)) {
                    ($0.id, $0.content.externalId)
                }
                // New rows wait here and go in one statement, before any update (which may be of one of them).
                var created: [Annotation] = []
                var sequences: [Int64] = []
                func flush() async throws {
                    try await PostgresAnnotationRow.insert(created, numbering: .given(sequences), tenant: tenant, at: at, on: connection, logger: logger)
                    created.removeAll(keepingCapacity: true)
                    sequences.removeAll(keepingCapacity: true)
                }
                for feature in features {
                    if let annotation = match.existing(for: feature) {
                        try await flush()
                        let write = AnnotationWrite.replace(annotation, with: feature.content, at: at)
                        try await commit(write, on: connection, appender: &appender)
                        match.wrote(write.annotation, replacing: annotation)
                        results.append(ImportResult(id: write.annotation.id, status: write.status))
                    } else {
                        // Its external id's owner is known: the match holds every live one of the chunk.
                        let annotation = AnnotationWrite.create(feature.content, id: ids.next(), at: at).annotation
                        created.append(annotation)
                        sequences.append(appender.next())
                        match.wrote(annotation, replacing: nil)
                        results.append(ImportResult(id: annotation.id, status: .created))
                    }
                }
                try await flush()
            }
            return results
        }
        return results.map { ($0.id, $0.status) }
    }

    /// One feature's outcome (a Sendable struct: tuples cannot cross the transaction's boundary).
    struct ImportResult: Sendable {
        var id: AnnotationID
        var status: WriteStatus
    }

    public func changes(after sequence: Int64, limit: Int) async throws -> [AnnotationChange] {
        try await database.withConnection { [self] connection in try await changes(after: sequence, limit: limit, on: connection) }
    }

    private func changes(after sequence: Int64, limit: Int, on connection: PostgresConnection) async throws -> [AnnotationChange] {
        let rows = try await connection.query("""
            SELECT sequence, kind, annotation_id, version, \(unescaped: PostgresAnnotationRow.milliseconds("at")) FROM annotation_change
            WHERE tenant = \(tenant.description) AND sequence > \(sequence) ORDER BY sequence LIMIT \(limit)
            """, logger: logger)
        var changes: [AnnotationChange] = []
        for try await (sequence, kind, id, version, at) in rows.decode((Int64, String, UUID, Int, Int64).self) {
            guard let kind = AnnotationChange.Kind(rawValue: kind), let id = AnnotationID(uuid: id) else {
                throw StorageError.corruptRow(table: "annotation_change", id: "\(sequence)")
            }
            changes.append(AnnotationChange(sequence: sequence, kind: kind, id: id, version: version, at: UnixMilliseconds.date(at)))
        }
        return changes
    }

    public func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await feed.wait(after: sequence, timeout: timeout)
    }

    /// The greatest annotation id ever stored, live or deleted, in any tenant: seed for the id generator.
    public func lastIssuedID() async throws -> AnnotationID? {
        let rows = try await database.client.query("""
            SELECT id FROM (SELECT id FROM annotation UNION ALL SELECT id FROM annotation_tombstone) AS ids ORDER BY id DESC LIMIT 1
            """, logger: logger)
        for try await id in rows.decode(UUID.self) { return AnnotationID(uuid: id) }
        return nil
    }

    public func annotations(ids: [AnnotationID]) async throws -> [AnnotationID: Annotation] {
        guard !ids.isEmpty else { return [:] }
        return try await database.withConnection { [tenant, logger] connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresAnnotationRow.columns) FROM annotation WHERE tenant = \(tenant.description) AND id = ANY(\(ids.map(\.uuid)))
                """, logger: logger)
            var found: [AnnotationID: Annotation] = [:]
            found.reserveCapacity(ids.count)
            for try await row in rows.decode(PostgresAnnotationRow.Columns.self) {
                let annotation = try PostgresAnnotationRow.annotation(row)
                found[annotation.id] = annotation
            }
            return found
        }
    }
}

/// What the thinning index reads: the live annotations' positions and classes, and what changed since.
extension PostgresAnnotationStore: ThinningSource {
    public var latestSequence: Int64 { feed.latest }

    public var announces: Bool { true }

    public func announcedChanges(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)? {
        database.feeds.announcedChanges(tenant).changes(after: sequence, limit: limit)
    }

    public func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64) {
        // One repeatable-read transaction: the rows are exactly those of the counter's position.
        try await database.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            var sequence: Int64 = 0
            for try await last in try await connection.query("""
                SELECT last FROM feed_counter WHERE tenant = \(tenant.description) AND feed = \(Self.feedName)
                """, logger: logger).decode(Int64.self) { sequence = last }
            var entries: [ThinningEntry] = []
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresAnnotationRow.entryColumns) FROM annotation WHERE tenant = \(tenant.description) ORDER BY id
                """, logger: logger)
            for try await row in rows.decode(PostgresAnnotationRow.EntryColumns.self) { entries.append(try PostgresAnnotationRow.entry(row)) }
            return (entries, sequence)
        }
    }

    public func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)] {
        try await database.withConnection { [tenant, logger] connection in
            // A text search narrows the rows (the text is not cast to jsonb, which refuses some of
            // what it may hold); each is then read by the rule every entry's properties are.
            let rows = try await connection.query("""
                SELECT id, properties FROM annotation WHERE tenant = \(tenant.description) AND strpos(properties, \(AnnotationRecord.memberPrefix(property))) > 0
                """, logger: logger)
            var values: [(id: AnnotationID, value: Double)] = []
            for try await (uuid, text) in rows.decode((UUID, String).self) {
                guard let id = AnnotationID(uuid: uuid), let properties = AnnotationRecord.properties(text) else {
                    throw StorageError.corruptRow(table: "annotation", id: uuid.uuidString.lowercased())
                }
                if let value = ThinningEntry.numbers(of: properties)[property] { values.append((id, value)) }
            }
            return values
        }
    }

    public func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64) {
        // One snapshot: when the page holds every entry after `sequence`, the rows are exactly as
        // of its last one (a follower may then apply announced entries after it, each newer).
        try await database.transaction(isolation: "REPEATABLE READ READ ONLY") { [self] connection in
            let changed = try await changes(after: sequence, limit: limit, on: connection)
            guard let through = changed.last?.sequence else { return ([], [], sequence) }
            let ids = Set(changed.map(\.id))
            // Whole rows: the entries carry their numeric properties for the index's columns.
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresAnnotationRow.columns) FROM annotation WHERE tenant = \(tenant.description) AND id = ANY(\(ids.map(\.uuid)))
                """, logger: logger)
            var upserts: [ThinningEntry] = []
            for try await row in rows.decode(PostgresAnnotationRow.Columns.self) { upserts.append(ThinningEntry(try PostgresAnnotationRow.annotation(row))) }
            let live = Set(upserts.map(\.id))
            return (upserts, ids.filter { !live.contains($0) }.sorted(), through)
        }
    }
}
