import Annotations
import Foundation
import GRDB
import MapGeometry
import Timeline
import WireJSON

/// A row of `annotation`: flat columns, properties as JSON text.
struct AnnotationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "annotation"

    var tenant: String
    var id: String
    var externalId: String?
    var latitude: Double
    var longitude: Double
    var title: String?
    var subtitle: String?
    var kind: String?
    var clusteringIdentifier: String?
    var displayPriority: Int
    var properties: String
    var version: Int
    var createdAt: Int64  // Unix milliseconds
    var updatedAt: Int64

    init(_ annotation: Annotation, tenant: TenantID) {
        let content = annotation.content
        self.tenant = tenant.description
        id = annotation.id.description
        externalId = content.externalId
        latitude = content.coordinate.latitude
        longitude = content.coordinate.longitude
        title = content.title
        subtitle = content.subtitle
        kind = content.kind
        clusteringIdentifier = content.clusteringIdentifier
        displayPriority = content.displayPriority
        properties = JSONValue.canonicalText(of: content.properties)
        version = annotation.version
        createdAt = UnixMilliseconds.from(annotation.createdAt)
        updatedAt = UnixMilliseconds.from(annotation.updatedAt)
    }

    /// The domain value; a row that does not decode is a corrupt database, reported as such.
    func annotation() throws -> Annotation {
        guard let identifier = AnnotationID(id), let properties = Self.properties(properties) else {
            throw StorageError.corruptRow(table: Self.databaseTableName, id: id)
        }
        let content = AnnotationContent(
            externalId: externalId,
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            title: title, subtitle: subtitle, kind: kind, clusteringIdentifier: clusteringIdentifier,
            displayPriority: displayPriority,
            properties: properties
        )
        return Annotation(
            id: identifier, content: content, version: version,
            createdAt: UnixMilliseconds.date(createdAt), updatedAt: UnixMilliseconds.date(updatedAt)
        )
    }

    /// The members of a stored `properties` object (its canonical JSON), read by the one-pass
    /// parser (a Foundation decoder per row cost lists and exports of many rows); nil when corrupt.
    static func properties(_ text: String) -> [String: JSONValue]? {
        var text = text
        return text.withUTF8 { bytes in JSONValueParser.parse(UnsafeRawBufferPointer(bytes))?.objectValue }
    }

    /// How member `name` starts in a stored `properties` text (`"name":`, escaped as the canonical
    /// text escapes it): rows whose text holds it may have the member, the others do not.
    static func memberPrefix(_ name: String) -> String {
        let text = JSONValue.canonicalText(of: [name: .null])
        return String(text.dropFirst().dropLast("null}".count))
    }

    /// A plain INSERT for bulk imports (``BulkWriter``): the row `insert(_:)` writes.
    static let insertSQL = """
        INSERT INTO annotation (tenant, id, externalId, latitude, longitude, title, subtitle, kind, clusteringIdentifier,
                                displayPriority, properties, version, createdAt, updatedAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Whether the row holds exactly `content`: columns compared first, properties by their
    /// canonical text (every row is written in that form).
    func holds(_ content: AnnotationContent) throws -> Bool {
        // Text compares as bytes, as SQLite stores it (Swift's == would equate canonically equivalent spellings).
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): return true
            case let (a?, b?): return a.utf8.elementsEqual(b.utf8)
            default: return false
            }
        }
        guard same(externalId, content.externalId), latitude == content.coordinate.latitude, longitude == content.coordinate.longitude,
              same(title, content.title), same(subtitle, content.subtitle), same(kind, content.kind),
              same(clusteringIdentifier, content.clusteringIdentifier), displayPriority == content.displayPriority
        else { return false }
        return same(properties, JSONValue.canonicalText(of: content.properties))
    }
}

/// A row of `annotationTombstone`: a deleted id, forever.
struct AnnotationTombstoneRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "annotationTombstone"
    var tenant: String
    var id: String
    var version: Int
    var deletedAt: Int64  // Unix milliseconds
}

/// A row of `idempotencyKey`.
struct IdempotencyKeyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "idempotencyKey"
    var tenant: String
    var key: String
    var fingerprint: String
    var annotationId: String
    var createdAt: Int64  // Unix milliseconds
}

/// A row of `annotationChange`, the feed.
struct AnnotationChangeRecord: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "annotationChange"
    /// Appends an entry: tenant, sequence (``FeedCounter``), kind, annotation id, version, Unix milliseconds.
    static let insertSQL = "INSERT INTO annotationChange (tenant, sequence, kind, annotationId, version, at) VALUES (?, ?, ?, ?, ?, ?)"

    var tenant: String
    var sequence: Int64
    var kind: String
    var annotationId: String
    var version: Int
    var at: Int64  // Unix milliseconds

    func change() throws -> AnnotationChange {
        guard let id = AnnotationID(annotationId), let kind = AnnotationChange.Kind(rawValue: kind) else {
            throw StorageError.corruptRow(table: Self.databaseTableName, id: "\(sequence)")
        }
        return AnnotationChange(sequence: sequence, kind: kind, id: id, version: version, at: UnixMilliseconds.date(at))
    }
}

/// Times are stored as integer Unix milliseconds: exact, sortable, and the same Date on the way back.
enum UnixMilliseconds {
    static func from(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
