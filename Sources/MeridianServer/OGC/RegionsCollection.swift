import Foundation
import Geodesy
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// The `regions` collection: the tenant's live region and corridor subscriptions as polygons,
/// in subscription id order (``RegionShape/outline()``: a polygon as itself, a circle and a
/// corridor as their geodesic buffers, cut at the antimeridian into a MultiPolygon). The feature
/// id is the subscription id; the properties are flat: `name`, `type` (`circle`, `polygon`,
/// `corridor`), `radius` and `centerLatitude`/`centerLongitude` of a circle, `width` of a
/// corridor, the rule's `notifyOnEntry`, `notifyOnExit`, `hysteresis`, `dwell`, the
/// subscription's `deviceIds`, `maxLocationAge`, `maxHorizontalAccuracy`, `createdAt` (the
/// temporal property), and its free properties beside them; a free property named like one of
/// these is `properties.<name>`, as on `annotations`.
struct RegionsCollection: OGCCollectionSource {
    let id = "regions"
    let title = "Regions"
    let description = "Region and corridor subscriptions as polygons (circles and corridors as their geodesic buffers)."
    let temporalProperty: String? = "createdAt"

    /// The properties every region feature may have, by name.
    static let fields: Set<String> = [
        "name", "type", "radius", "centerLatitude", "centerLongitude", "width", "notifyOnEntry", "notifyOnExit", "hysteresis", "dwell",
        "deviceIds", "maxLocationAge", "maxHorizontalAccuracy", "createdAt", "id", "properties",
    ]

    func extent(in tenant: TenantSpace.Tenant) async throws -> OGCExtent {
        let regions = try await Self.regions(in: tenant)
        guard !regions.isEmpty else { return OGCExtent(bbox: BoundingBox(west: -180, south: -90, east: 180, north: 90), interval: nil) }
        let boxes = regions.map { $0.region!.shape.bounds }
        let crosses = boxes.contains { $0.west > $0.east }
        let times = regions.map(\.createdAt)
        return OGCExtent(
            bbox: BoundingBox(
                west: crosses ? -180 : boxes.map(\.west).min()!, south: boxes.map(\.south).min()!,
                east: crosses ? 180 : boxes.map(\.east).max()!, north: boxes.map(\.north).max()!),
            interval: (DevicesCollection.date(times.min()!), DevicesCollection.date(times.max()!)))
    }

    func items(_ query: OGCItemsQuery, in tenant: TenantSpace.Tenant) async throws -> OGCItemsPage {
        var matched: [[String: JSONValue]] = []
        for subscription in try await Self.regions(in: tenant) {
            guard let rule = subscription.region,
                  query.bbox.map({ Self.overlap($0, rule.shape.bounds) }) ?? true,
                  query.datetime.map({ $0.contains(DevicesCollection.date(subscription.createdAt)) }) ?? true else { continue }
            let feature = try Self.feature(subscription)
            guard OGCFeatureFilter.matches(query.filter, feature) else { continue }
            matched.append(feature)
        }
        return OGCFeaturePaging.page(of: matched, query)
    }

    func item(_ id: String, in tenant: TenantSpace.Tenant) async throws -> OGCFeature {
        let subscription = try await tenant.tracking.tracker.read { state in state.subscriptions[id] }
        guard let subscription, subscription.deletedAt == nil, subscription.region != nil else { throw OGCError.noFeature(id) }
        return OGCFeature(members: try Self.feature(subscription), version: nil)
    }

    func queryables(in tenant: TenantSpace.Tenant) async throws -> [String: JSONValue] {
        let number: JSONValue = .object(["type": .string("number")]), boolean: JSONValue = .object(["type": .string("boolean")])
        var properties: [String: JSONValue] = [
            "geometry": .object(["format": .string("geometry-polygon")]),
            "name": .object(["type": .string("string")]),
            "type": .object(["type": .string("string"), "enum": .array(["circle", "polygon", "corridor"].map { .string($0) })]),
            "createdAt": .object(["type": .string("string"), "format": .string("date-time")]),
            "deviceIds": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
            "notifyOnEntry": boolean, "notifyOnExit": boolean,
        ]
        for name in ["radius", "centerLatitude", "centerLongitude", "width", "hysteresis", "dwell", "maxLocationAge", "maxHorizontalAccuracy"] {
            properties[name] = number
        }
        for subscription in try await Self.regions(in: tenant) {
            for (name, value) in subscription.properties {
                if let type = OGCQueryables.JSONType(value) { properties[Self.flatName(ofFree: name)] = OGCQueryables.schema([type]) }
            }
        }
        return properties
    }

    // MARK: - Mapping

    /// The live region subscriptions, in id order.
    static func regions(in tenant: TenantSpace.Tenant) async throws -> [Subscription] {
        try await tenant.tracking.tracker.read { state in
            state.subscriptions.values.filter { $0.deletedAt == nil && $0.region != nil }.sorted { $0.id < $1.id }
        }
    }

    /// The flat name of the free property `name`.
    static func flatName(ofFree name: String) -> String {
        fields.contains(name) || name.hasPrefix("properties.") ? "properties." + name : name
    }

    /// The feature of a region subscription: its outline and its flat properties.
    static func feature(_ subscription: Subscription) throws -> [String: JSONValue] {
        guard let rule = subscription.region else { throw OGCError.noFeature(subscription.id) }
        var properties: [String: JSONValue] = [:]
        for (name, value) in subscription.properties { properties[flatName(ofFree: name)] = value }
        switch rule.shape {
        case .circle(let center, let radius):
            properties["type"] = .string("circle")
            properties["radius"] = .number(radius)
            properties["centerLatitude"] = .number(center.latitude)
            properties["centerLongitude"] = .number(center.longitude)
        case .polygon: properties["type"] = .string("polygon")
        case .corridor(let corridor):
            properties["type"] = .string("corridor")
            properties["width"] = .number(corridor.width)
        }
        if let name = subscription.name { properties["name"] = .string(name) }
        properties["notifyOnEntry"] = .bool(rule.notifyOnEntry)
        properties["notifyOnExit"] = .bool(rule.notifyOnExit)
        properties["hysteresis"] = .number(rule.hysteresis)
        if let dwell = rule.dwell { properties["dwell"] = .number(dwell) }
        if let devices = subscription.deviceIds { properties["deviceIds"] = .array(devices.map { .string($0) }) }
        if let age = subscription.maxLocationAge { properties["maxLocationAge"] = .number(age) }
        if let accuracy = subscription.maxHorizontalAccuracy { properties["maxHorizontalAccuracy"] = .number(accuracy) }
        properties["createdAt"] = .string(subscription.createdAt.rfc3339)
        return [
            "type": .string("Feature"),
            "id": .string(subscription.id),
            // A shape GEOS cannot draw (a corridor whose buffer passes over a pole) is served without
            // a geometry (GeoJSON's null) rather than failing the page that holds it.
            "geometry": (try? rule.shape.outline()).map(geometry) ?? .null,
            "properties": .object(properties),
        ]
    }

    /// A Polygon, or a MultiPolygon of the pieces of one cut at the antimeridian.
    static func geometry(_ polygons: [GeoPolygon]) -> JSONValue {
        func ring(_ ring: [Coordinate]) -> JSONValue { .array(ring.map { .array([.number($0.longitude), .number($0.latitude)]) }) }
        func rings(_ polygon: GeoPolygon) -> JSONValue { .array(([polygon.exterior] + polygon.holes).map(ring)) }
        if polygons.count == 1 { return .object(["type": .string("Polygon"), "coordinates": rings(polygons[0])]) }
        return .object(["type": .string("MultiPolygon"), "coordinates": .array(polygons.map(rings))])
    }

    /// Whether two boxes (either may cross the antimeridian) share a point.
    static func overlap(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        guard a.south <= b.north, b.south <= a.north else { return false }
        func spans(_ box: BoundingBox) -> [(Double, Double)] { box.west <= box.east ? [(box.west, box.east)] : [(box.west, 180), (-180, box.east)] }
        return spans(a).contains { x in spans(b).contains { y in x.0 <= y.1 && y.0 <= x.1 } }
    }
}
