import Foundation
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// The `devices` collection: each device of the tenant with a fix, as a Point at its last
/// accepted fix (the one `/v1/devices` lists), in device id order. The feature id is the device
/// id; the properties are the fix's fields, flat (`timestamp`, `horizontalAccuracy`, and
/// `speed`, `course`, `altitude`, `verticalAccuracy` and the `attributes` object when the fix
/// has them, so a filter names `attributes.batteryLevel`); `timestamp`, the fix's event time, is
/// the temporal property.
struct DevicesCollection: OGCCollectionSource {
    let id = "devices"
    let title = "Devices"
    let description = "Each device's last fix as a point; properties are the fix's fields, timestamp its time."
    let temporalProperty: String? = "timestamp"

    func extent(in tenant: TenantSpace.Tenant) async throws -> OGCExtent {
        let fixes = try await tenant.tracking.tracker.read { state in state.devices.values.compactMap(\.lastFix) }
        // No device yet: the whole world, as `annotations` says (clients read a box from every collection).
        guard !fixes.isEmpty else { return OGCExtent(bbox: BoundingBox(west: -180, south: -90, east: 180, north: 90), interval: nil) }
        let latitudes = fixes.map(\.coordinate.latitude), times = fixes.map(\.timestamp)
        let longitudes = fixes.map(\.coordinate.longitude)
        return OGCExtent(
            bbox: BoundingBox(west: longitudes.min()!, south: latitudes.min()!, east: longitudes.max()!, north: latitudes.max()!),
            interval: (Self.date(times.min()!), Self.date(times.max()!)))
    }

    func items(_ query: OGCItemsQuery, in tenant: TenantSpace.Tenant) async throws -> OGCItemsPage {
        let devices = try await tenant.tracking.tracker.read { state in
            state.devices.values.compactMap { device in device.lastFix.map { (device.id, $0) } }.sorted { $0.0 < $1.0 }
        }
        var matched: [[String: JSONValue]] = []
        for (deviceId, fix) in devices {
            guard query.bbox.map({ $0.contains(fix.coordinate) }) ?? true,
                  query.datetime.map({ $0.contains(Self.date(fix.timestamp)) }) ?? true else { continue }
            let feature = Self.feature(id: deviceId, fix: fix)
            guard OGCFeatureFilter.matches(query.filter, feature) else { continue }
            matched.append(feature)
        }
        return OGCFeaturePaging.page(of: matched, query)
    }

    func item(_ id: String, in tenant: TenantSpace.Tenant) async throws -> OGCFeature {
        let fix = try await tenant.tracking.tracker.read { state in state.devices[id]?.lastFix }
        guard let fix else { throw OGCError.noFeature(id) }
        return OGCFeature(members: Self.feature(id: id, fix: fix), version: nil)
    }

    func queryables(in tenant: TenantSpace.Tenant) async throws -> [String: JSONValue] {
        let number: JSONValue = .object(["type": .string("number")])
        return [
            "geometry": .object(["format": .string("geometry-point")]),
            "timestamp": .object(["type": .string("string"), "format": .string("date-time")]),
            "horizontalAccuracy": number, "speed": number, "course": number, "altitude": number, "verticalAccuracy": number,
            "attributes": .object(["type": .string("object")]),
        ]
    }

    static func date(_ instant: Instant) -> Date { Date(timeIntervalSince1970: instant.secondsSince1970) }

    /// The feature of a device's fix.
    static func feature(id: String, fix: LocationFix) -> [String: JSONValue] {
        var properties: [String: JSONValue] = [
            "timestamp": .string(fix.timestamp.rfc3339),
            "horizontalAccuracy": .number(fix.horizontalAccuracy),
        ]
        for (name, value) in [("speed", fix.speed), ("course", fix.course), ("altitude", fix.altitude), ("verticalAccuracy", fix.verticalAccuracy)] {
            if let value { properties[name] = .number(value) }
        }
        if !fix.attributes.isEmpty { properties["attributes"] = .object(fix.attributes) }
        return [
            "type": .string("Feature"),
            "id": .string(id),
            "geometry": .object(["type": .string("Point"), "coordinates": .array([.number(fix.coordinate.longitude), .number(fix.coordinate.latitude)])]),
            "properties": .object(properties),
        ]
    }
}
