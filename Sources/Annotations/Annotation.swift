public import Foundation
public import MapGeometry
public import Timeline
public import WireJSON

/// An annotation's id: a UUIDv7, time-ordered and never reused.
public typealias AnnotationID = UUIDv7

/// A pin on the map with a stable identity.
///
/// `id` always names the same annotation; every write bumps `version`; a deleted annotation's id
/// stays a tombstone and is never issued again. Clients therefore never hold a half-updated or
/// recycled pin: they compare (id, version) and replace the whole value.
public struct Annotation: Hashable, Sendable {
    /// Server-assigned, time-ordered, never reused.
    public let id: AnnotationID
    /// What the client sets: position, texts, reuse class, clustering and priority, free properties.
    public var content: AnnotationContent
    /// 1 on creation, +1 on every change.
    public var version: Int
    /// When the server created it.
    public let createdAt: Date
    /// When the server last changed it.
    public var updatedAt: Date

    /// An annotation as storage holds it.
    public init(id: AnnotationID, content: AnnotationContent, version: Int, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.content = content
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The client-owned fields of an annotation, validated.
public struct AnnotationContent: Hashable, Sendable {
    /// The default `displayPriority`.
    public static let defaultDisplayPriority = 500
    /// `displayPriority` of annotations that are never clustered.
    public static let requiredDisplayPriority = 1000

    /// Optional client key, unique per tenant, for upserts.
    public var externalId: String?
    /// Where the pin stands.
    public var coordinate: Coordinate
    /// Callout title.
    public var title: String?
    /// Callout subtitle.
    public var subtitle: String?
    /// The reuse class, e.g. `shop`: which view a client uses for it.
    public var kind: String?
    /// What may cluster together; annotations without one share the default group.
    public var clusteringIdentifier: String?
    /// 0…1000; 1000 means required (never clustered). Default 500.
    public var displayPriority: Int
    /// Free JSON object, at most ``Limits/maxPropertiesBytes`` bytes encoded.
    public var properties: [String: JSONValue]

    /// Content with no checks; use ``validate()`` on anything from outside.
    public init(
        externalId: String? = nil, coordinate: Coordinate, title: String? = nil, subtitle: String? = nil,
        kind: String? = nil, clusteringIdentifier: String? = nil,
        displayPriority: Int = AnnotationContent.defaultDisplayPriority, properties: [String: JSONValue] = [:]
    ) {
        self.externalId = externalId
        self.coordinate = coordinate
        self.title = title
        self.subtitle = subtitle
        self.kind = kind
        self.clusteringIdentifier = clusteringIdentifier
        self.displayPriority = displayPriority
        self.properties = properties
    }
}
