import Annotations
import AnnotationIndex
import Foundation
import MapGeometry
import MeridianHTTP
import Timeline
import WireJSON

/// The `annotations` collection: the tenant's live annotations as Point features with flat
/// properties (``FlatProperties``), in id order, `updatedAt` as the temporal property; writes
/// follow the annotations' identity rules (versions as ETags, tombstones, idempotency keys).
struct AnnotationsCollection: OGCWritableSource {
    let id = "annotations"
    let title = "Annotations"
    let description = "The tenant's annotations (map pins) as points; properties are the annotation's fields and its free properties side by side."
    let temporalProperty: String? = "updatedAt"

    /// Rows read at a time while `datetime` leaves some out.
    static let chunk = 1_000

    func extent(in tenant: TenantSpace.Tenant) async throws -> OGCExtent {
        // The whole world: a box of the data would read every point. Times: from the first write on, open-ended.
        let first = try await tenant.annotations.changes(after: 0, limit: 1).first
        return OGCExtent(bbox: BoundingBox(west: -180, south: -90, east: 180, north: 90), interval: (first?.at, nil))
    }

    func items(_ query: OGCItemsQuery, in tenant: TenantSpace.Tenant) async throws -> OGCItemsPage {
        var selection = AnnotationQuery(bbox: query.bbox, filter: query.filter)
        var after = try query.cursor.map { cursor throws(OGCError) in
            guard let id = AnnotationID(anyUUID: cursor) else { throw OGCError.noPage(cursor) }
            return id
        }
        // `datetime` is applied here, on rows read in id order, until the page and one more are found.
        var kept: [Annotation] = []
        var next: AnnotationID?
        repeat {
            selection.after = after
            selection.limit = query.datetime == nil ? query.limit : max(Self.chunk, query.limit + 1 - kept.count)
            let page = try await tenant.queries.page(matching: selection)
            kept += page.annotations.filter { query.datetime?.contains($0.updatedAt) ?? true }
            (after, next) = (page.next, page.next)
        } while query.datetime != nil && after != nil && kept.count <= query.limit
        if kept.count > query.limit {
            kept.removeLast(kept.count - query.limit)
            next = kept.last?.id
        } else if query.datetime != nil {
            next = nil
        }
        var matched: Int?
        if !query.isNarrowed {
            _ = try await tenant.thinning.current()  // caught up with every answered write
            matched = tenant.thinning.points.count
        }
        return OGCItemsPage(features: kept.map { .object(Self.feature($0)) }, next: next?.description, numberMatched: matched)
    }

    func item(_ id: String, in tenant: TenantSpace.Tenant) async throws -> OGCFeature {
        let annotation = try await tenant.annotations.annotation(try Self.annotationID(id))
        return OGCFeature(members: Self.feature(annotation), version: annotation.version)
    }

    func queryables(in tenant: TenantSpace.Tenant) async throws -> [String: JSONValue] {
        var properties = OGCQueryables.builtIns
        for (name, types) in try await freeTypes(in: tenant) {
            properties[FlatProperties.flatName(ofFree: name)] = OGCQueryables.schema(types)
        }
        return properties
    }

    // MARK: - Writes

    func create(_ feature: [String: JSONValue], idempotencyKey: String?, in tenant: TenantSpace.Tenant) async throws -> (feature: OGCFeature, replayed: Bool) {
        let content = try FlatProperties.content(ofFeature: feature)
        let key = try idempotencyKey.map { key throws(ProblemError) in
            guard (1...IdempotencyKey.maxLength).contains(key.unicodeScalars.count) else {
                throw ProblemError.invalid([.init(parameter: "Idempotency-Key", detail: "must be 1 to \(IdempotencyKey.maxLength) characters")])
            }
            return IdempotencyKey(key: key, fingerprint: content.fingerprint)
        }
        let (annotation, replayed) = try await tenant.keysInFlight.holding(key?.key) {
            try await tenant.annotations.create(content, idempotencyKey: key)
        }
        return (OGCFeature(members: Self.feature(annotation), version: annotation.version), replayed)
    }

    func replace(_ id: String, with feature: [String: JSONValue], expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws -> OGCFeature {
        let content = try FlatProperties.content(ofFeature: feature)
        // The whole content: what the feature leaves out (an external id too) returns to its default.
        return try await update(id, expectedVersion: expectedVersion, in: tenant) { _ in content }
    }

    func patch(_ id: String, with patch: [String: JSONValue], expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws -> OGCFeature {
        try await update(id, expectedVersion: expectedVersion, in: tenant) { current in
            try FlatProperties.content(current, patchedWith: patch)
        }
    }

    func delete(_ id: String, expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant) async throws {
        try await tenant.annotations.delete(try Self.annotationID(id), expectedVersion: expectedVersion)
    }

    private func update(
        _ id: String, expectedVersion: VersionCondition, in tenant: TenantSpace.Tenant,
        _ change: @escaping @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> OGCFeature {
        let annotation = try await tenant.annotations.update(try Self.annotationID(id), expectedVersion: expectedVersion, change)
        return OGCFeature(members: Self.feature(annotation), version: annotation.version)
    }

    // MARK: - Mapping

    /// The feature of an annotation: its id, its point, its flat properties.
    static func feature(_ annotation: Annotation) -> [String: JSONValue] {
        [
            "type": .string("Feature"),
            "id": .string(annotation.id.description),
            "geometry": FlatProperties.point(annotation.content.coordinate),
            "properties": .object(FlatProperties.properties(of: annotation)),
        ]
    }

    /// The annotation a feature id names; anything but a UUID names no feature (404).
    static func annotationID(_ text: String) throws(OGCError) -> AnnotationID {
        guard let id = AnnotationID(anyUUID: text) else { throw OGCError.noFeature(text) }
        return id
    }

    /// The JSON types each free property holds across the tenant's live annotations, read a page at a time.
    private func freeTypes(in tenant: TenantSpace.Tenant) async throws -> [String: Set<OGCQueryables.JSONType>] {
        var types: [String: Set<OGCQueryables.JSONType>] = [:]
        var query = AnnotationQuery(limit: 10_000)
        repeat {
            try Task.checkCancellation()
            let page = try await tenant.annotations.annotations(matching: query)
            for annotation in page.annotations {
                for (name, value) in annotation.content.properties {
                    if let type = OGCQueryables.JSONType(value) { types[name, default: []].insert(type) }
                }
            }
            query.after = page.next
        } while query.after != nil
        return types
    }
}
