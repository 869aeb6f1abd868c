import Annotations
import Foundation
import MapGeometry
import WireJSON

/// One feature collection of a tenant under `/ogc`: the seam between the generic items, item and
/// queryables logic (``APIHandler``'s OGC operations) and where the features come from. Each source
/// is stateless; the tenant is passed in.
protocol OGCCollectionSource: Sendable {
    /// The collection's id in paths (`annotations`).
    var id: String { get }
    var title: String { get }
    var description: String { get }
    /// The property `datetime` selects on (`updatedAt`), nil when the collection has none.
    var temporalProperty: String? { get }
    /// The collection's extent in the tenant's data now.
    func extent(in tenant: TenantSpace.Tenant) async throws -> OGCExtent
    /// One page of features, in the collection's order.
    func items(_ query: OGCItemsQuery, in tenant: TenantSpace.Tenant) async throws -> OGCItemsPage
    /// One feature; a feature the collection does not hold throws ``OGCError/noFeature(_:)`` (or the
    /// store's own not-found and gone errors).
    func item(_ id: String, in tenant: TenantSpace.Tenant) async throws -> OGCFeature
    /// The members of the queryables' `properties` (JSON Schemas by property name).
    func queryables(in tenant: TenantSpace.Tenant) async throws -> [String: JSONValue]
}

/// A collection that takes writes (Part 4): bodies are GeoJSON Features as sent.
protocol OGCWritableSource: OGCCollectionSource {
    /// Creates a feature; with a key seen before and the same content, the first answer again (`replayed`).
    func create(_ feature: [String: JSONValue], idempotencyKey: String?, in tenant: TenantSpace.Tenant) async throws -> (feature: OGCFeature, replayed: Bool)
    /// Replaces the feature's content (it must exist).
    func replace(_ id: String, with feature: [String: JSONValue], expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws -> OGCFeature
    /// Applies a JSON merge patch of the feature.
    func patch(_ id: String, with patch: [String: JSONValue], expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws -> OGCFeature
    /// Deletes the feature; its id is gone from then on.
    func delete(_ id: String, expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws
}

/// What a request for a collection's items asks, read from its query (``OGCItemsRequest``).
struct OGCItemsQuery: Sendable {
    /// Most features on the page.
    var limit: Int
    /// Only features inside (it may cross the antimeridian).
    var bbox: BoundingBox?
    /// Only features whose temporal property lies in this interval.
    var datetime: OGCInterval?
    /// Only features this CQL2 filter matches.
    var filter: Filter?
    /// Where the page starts (the previous page's ``OGCItemsPage/next``).
    var cursor: String?

    /// Whether anything narrows the collection (then `numberMatched` is not cheap).
    var isNarrowed: Bool { bbox != nil || datetime != nil || filter != nil }
}

/// One page of features.
struct OGCItemsPage: Sendable {
    /// GeoJSON Features, in order.
    var features: [JSONValue]
    /// The cursor of the next page; nil on the last.
    var next: String?
    /// How many features the query matches in all, when that is cheap.
    var numberMatched: Int?
}

/// One GeoJSON Feature and its version (the ETag's), when the collection has versions.
struct OGCFeature: Sendable {
    var members: [String: JSONValue]
    var version: Int?

    /// `"<version>"`.
    var eTag: String? { version.map { "\"\($0)\"" } }
}

/// A collection's extent: a box (west > east across the antimeridian) and a time interval (nil ends are open).
struct OGCExtent: Sendable {
    var bbox: BoundingBox?
    var interval: (start: Date?, end: Date?)?
}

/// Why an OGC request names nothing (404).
enum OGCError: Error, Sendable {
    case noCollection(String)
    case noFeature(String)
    /// A cursor the collection cannot read names no page.
    case noPage(String)
    /// The collection takes no writes (405).
    case readOnly(String)
}
