import Annotations
import Foundation
import MapGeometry
import PostgresNIO
import AnnotationIndex
import Timeline
import WireJSON

/// The one mapping between an `annotation` row and the domain on PostgreSQL: what to select,
/// how to decode it, how to bind a row's values. Times travel as Unix milliseconds, converted in
/// SQL, so a write returns exactly what a later read returns (as on SQLite).
enum PostgresAnnotationRow {
    /// The columns a whole-annotation query selects, in ``Columns``' order.
    static let columns = """
        id, external_id, latitude, longitude, title, subtitle, kind, clustering_identifier, display_priority, properties, version,
        \(milliseconds("created_at")), \(milliseconds("updated_at"))
        """
    typealias Columns = (UUID, String?, Double, Double, String?, String?, String?, String?, Int, String, Int, Int64, Int64)

    /// The columns the thinning index reads, in ``EntryColumns``' order.
    static let entryColumns = "id, latitude, longitude, kind, clustering_identifier, display_priority, version"
    typealias EntryColumns = (UUID, Double, Double, String?, String?, Int, Int)

    /// A `timestamptz` column as integer Unix milliseconds (exact: `extract` answers `numeric`).
    static func milliseconds(_ column: String) -> String {
        "(extract(epoch FROM \(column)) * 1000)::bigint"
    }

    static func annotation(_ row: Columns) throws -> Annotation {
        let (id, externalId, latitude, longitude, title, subtitle, kind, clusteringIdentifier, displayPriority, properties, version, created, updated) = row
        guard let identifier = AnnotationID(uuid: id), let members = AnnotationRecord.properties(properties) else {
            throw StorageError.corruptRow(table: "annotation", id: id.uuidString.lowercased())
        }
        let content = AnnotationContent(
            externalId: externalId, coordinate: Coordinate(latitude: latitude, longitude: longitude),
            title: title, subtitle: subtitle, kind: kind, clusteringIdentifier: clusteringIdentifier,
            displayPriority: displayPriority, properties: members)
        return Annotation(id: identifier, content: content, version: version,
                          createdAt: UnixMilliseconds.date(created), updatedAt: UnixMilliseconds.date(updated))
    }

    static func entry(_ row: EntryColumns) throws -> ThinningEntry {
        let (id, latitude, longitude, kind, clusteringIdentifier, displayPriority, version) = row
        guard let identifier = AnnotationID(uuid: id) else { throw StorageError.corruptRow(table: "annotation", id: id.uuidString.lowercased()) }
        return ThinningEntry(id: identifier, coordinate: Coordinate(latitude: latitude, longitude: longitude), kind: kind,
                             clusteringIdentifier: clusteringIdentifier, displayPriority: displayPriority, version: version)
    }

    /// Inserts `annotation` as a new row of `tenant`.
    static func insert(_ annotation: Annotation, tenant: TenantID, on connection: PostgresConnection, logger: Logger) async throws {
        let content = annotation.content
        let (latitude, longitude) = (content.coordinate.latitude, content.coordinate.longitude)
        try await connection.query("""
            INSERT INTO annotation (tenant, id, external_id, latitude, longitude, location, title, subtitle, kind, clustering_identifier,
                                    display_priority, properties, version, created_at, updated_at)
            VALUES (\(tenant.description), \(annotation.id.uuid), \(content.externalId), \(latitude), \(longitude),
                    ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography,
                    \(content.title), \(content.subtitle), \(content.kind), \(content.clusteringIdentifier), \(content.displayPriority),
                    \(JSONValue.canonicalText(of: content.properties)), \(annotation.version),
                    \(unescaped: instant(annotation.createdAt)), \(unescaped: instant(annotation.updatedAt)))
            """, logger: logger)
    }

    /// How new rows' feed entries are numbered: given (the caller holds the counter), or from the
    /// tenant's counter row inside the insert's own statement.
    enum Numbering {
        case given([Int64])
        /// The statement takes the `feed` counter, numbers the entries in order after it, stores
        /// it and notifies: the counter row is held from that statement to the commit, not longer.
        case counter(feed: String)
    }

    /// Inserts new version-1 annotations of `tenant` created at `at` and their `created` feed
    /// entries, in one statement (arrays unnested: a bulk import is tens of thousands of rows, and
    /// a round trip per row cost a minute for the demo cities); returns the counter's new value
    /// when it numbered them. Their external ids must be free. Arrays cannot hold NULL through
    /// postgres-nio, so each nullable column travels with a mask.
    @discardableResult
    static func insert(
        _ annotations: [Annotation], numbering: Numbering, tenant: TenantID, at: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int64? {
        guard !annotations.isEmpty else { return nil }
        let contents = annotations.map(\.content)
        func column(_ value: KeyPath<AnnotationContent, String?>) -> ([String], [Bool]) {
            (contents.map { $0[keyPath: value] ?? "" }, contents.map { $0[keyPath: value] == nil })
        }
        let (externalIds, noExternalId) = column(\.externalId)
        let (titles, noTitle) = column(\.title)
        let (subtitles, noSubtitle) = column(\.subtitle)
        let (kinds, noKind) = column(\.kind)
        let (identifiers, noIdentifier) = column(\.clusteringIdentifier)
        let (sequences, feed): ([Int64], String?) = switch numbering {
        case .given(let sequences): (sequences, nil)
        case .counter(let feed): (annotations.indices.map { Int64($0) + 1 }, feed)
        }
        let count = Int64(annotations.count)
        // Announced with the counter: other instances apply the rows without reading them back.
        let body = feed == nil ? nil : AnnouncedChanges.payload(annotations.map { .upsert(ThinningEntry($0)) })
        // Numbered here: `counter` is the counter after the entries, each entry `last - count + its place`.
        let query: PostgresQuery = """
            WITH counter AS (
                INSERT INTO feed_counter (tenant, feed, last) SELECT \(tenant.description), \(feed ?? ""), \(count) WHERE \(feed != nil)
                ON CONFLICT (tenant, feed) DO UPDATE SET last = feed_counter.last + \(count) RETURNING last),
            rows AS (
                SELECT u.*, timestamptz 'epoch' + interval '1 millisecond' * \(UnixMilliseconds.from(at)) AS at FROM unnest(\(annotations.map(\.id.uuid)), \(externalIds), \(noExternalId),
                                     \(contents.map(\.coordinate.latitude)), \(contents.map(\.coordinate.longitude)),
                                     \(titles), \(noTitle), \(subtitles), \(noSubtitle), \(kinds), \(noKind), \(identifiers), \(noIdentifier),
                                     \(contents.map { Int64($0.displayPriority) }), \(contents.map { JSONValue.canonicalText(of: $0.properties) }), \(sequences))
                    AS u(id, external_id, no_external_id, latitude, longitude, title, no_title, subtitle, no_subtitle, kind, no_kind,
                         clustering_identifier, no_clustering_identifier, display_priority, properties, sequence)),
            inserted AS (
                INSERT INTO annotation (tenant, id, external_id, latitude, longitude, location, title, subtitle, kind, clustering_identifier,
                                        display_priority, properties, version, created_at, updated_at)
                SELECT \(tenant.description), id, CASE WHEN no_external_id THEN NULL ELSE external_id END, latitude, longitude,
                       ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography,
                       CASE WHEN no_title THEN NULL ELSE title END, CASE WHEN no_subtitle THEN NULL ELSE subtitle END,
                       CASE WHEN no_kind THEN NULL ELSE kind END, CASE WHEN no_clustering_identifier THEN NULL ELSE clustering_identifier END,
                       display_priority, properties, 1, at, at
                FROM rows),
            change AS (
                INSERT INTO annotation_change (tenant, sequence, kind, annotation_id, version, at)
                SELECT \(tenant.description), CASE WHEN counter.last IS NULL THEN sequence ELSE counter.last - \(count) + sequence END,
                       'created', id, 1, at
                FROM rows LEFT JOIN counter ON true)
            SELECT last FROM counter
            -- PostgresFeeds.payload(_:_:_:body:), written in SQL.
            CROSS JOIN LATERAL (SELECT pg_notify(\(PostgresFeeds.channel), \(feed ?? "") || ' ' || \(tenant.description) || ' ' || last
                                                || \(PostgresFeeds.suffix(body)))) AS notified
            """
        let rows = try await connection.rows(of: query, preparedAs: AnnotationInsertText.self, logger: logger)
        var last: Int64?
        for row in rows { last = try row.decode(Int64.self) }
        return last
    }

    /// Stores `annotation`'s content, version and update time over its row.
    static func update(_ annotation: Annotation, tenant: TenantID, on connection: PostgresConnection, logger: Logger) async throws {
        let content = annotation.content
        let (latitude, longitude) = (content.coordinate.latitude, content.coordinate.longitude)
        try await connection.query("""
            UPDATE annotation SET external_id = \(content.externalId), latitude = \(latitude), longitude = \(longitude),
                location = ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography,
                title = \(content.title), subtitle = \(content.subtitle), kind = \(content.kind),
                clustering_identifier = \(content.clusteringIdentifier), display_priority = \(content.displayPriority),
                properties = \(JSONValue.canonicalText(of: content.properties)), version = \(annotation.version),
                updated_at = \(unescaped: instant(annotation.updatedAt))
            WHERE tenant = \(tenant.description) AND id = \(annotation.id.uuid)
            """, logger: logger)
    }

    /// SQL for the `timestamptz` of `date` (whole milliseconds, written as a literal: exact).
    static func instant(_ date: Date) -> String {
        "(timestamptz 'epoch' + interval '1 millisecond' * \(UnixMilliseconds.from(date)))"
    }
}

extension UUIDv7 {
    /// The same 128 bits as Foundation's UUID (PostgreSQL's `uuid`, which orders bytewise as ids do).
    var uuid: UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The id these bits are, nil when they are not a version-7 UUID.
    init?(uuid: UUID) {
        let words = withUnsafeBytes(of: uuid.uuid) { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } as UInt64
        }
        let low = withUnsafeBytes(of: uuid.uuid) { bytes in bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        guard (words >> 12) & 0xF == 7, low >> 62 == 0b10 else { return nil }
        self.init(high: words, low: low)
    }
}
