import MeridianHTTP
import Foundation
import Geodesy
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Timeline
import Tracking

// Who is where: devices by box, age and distance; the regions holding a point; a region's occupants.

extension APIHandler {
    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let limit = try Paging.limit(input.query.limit)
        let box = try input.query.bbox.map(Self.bbox)
        let since = try input.query.seenSince.map { text throws(ProblemError) in
            guard let instant = Instant(rfc3339: text) else { throw ProblemError.invalid([.init(parameter: "seenSince", detail: "must be an RFC 3339 date-time")]) }
            return instant
        }
        let cursor = input.query.cursor
        let found = try await tracking.tracker.read { state -> [(id: String, profile: DeviceProfile?, fix: LocationFix?)] in
            // Registered devices without a fix have no place or time: a bbox or seenSince leaves them out.
            let ids = Set(state.devices.keys).union(box == nil && since == nil ? Set(state.profiles.keys) : [])
            return ids.filter { id in cursor.map { id > $0 } ?? true }.sorted().lazy
                .compactMap { id -> (id: String, profile: DeviceProfile?, fix: LocationFix?)? in
                    let fix = state.devices[id]?.lastFix
                    if let box, !(fix.map { box.contains($0.coordinate) } ?? false) { return nil }
                    if let since, !(fix.map { $0.timestamp >= since } ?? false) { return nil }
                    let profile = state.profiles[id]
                    guard fix != nil || profile != nil else { return nil }
                    return (id, profile, fix)
                }
                .prefix(limit + 1).map { $0 }
        }
        // Mapped here, in the request's task: exact numbers in attributes leave marks it resolves.
        let page = found.map { id, profile, fix in
            Components.Schemas.DeviceSummary(
                id: id, name: profile?.name, groups: profile.flatMap { $0.groups.isEmpty ? nil : $0.groups }, lastFix: fix.map(Components.Schemas.Fix.init))
        }
        let devices = Array(page.prefix(limit))
        return .ok(.init(body: .json(.init(devices: devices, nextCursor: page.count > limit ? devices.last?.id : nil))))
    }

    func nearestDevices(_ input: Operations.NearestDevices.Input) async throws -> Operations.NearestDevices.Output {
        let body = switch input.body { case .json(let body): body }
        let point: Coordinate
        do { point = try Coordinate(body.point) } catch { throw error.nested(under: "point") }
        let limit = try Self.bodyLimit(body.limit, default: RequestRules.defaultNearest)
        if let maxAge = body.maxAge, !(maxAge >= 0 && maxAge.isFinite) { throw ProblemError.invalid(pointer: "/maxAge", "must be a number of seconds ≥ 0") }
        // An age beyond any instant's range (≈ 300 years and more) leaves no device out.
        let oldest = body.maxAge.flatMap { $0 < Self.unlimitedAge ? Instant(secondsSince1970: Date().timeIntervalSince1970).adding(seconds: -$0) : nil }
        let found = try await tracking.tracker.read { state in
            state.devices.values
                .compactMap { device -> (String, LocationFix, Double)? in
                    guard let fix = device.lastFix, oldest.map({ fix.timestamp >= $0 }) ?? true else { return nil }
                    return (device.id, fix, Geodesic.wgs84.inverse(from: point, to: fix.coordinate).distance)
                }
                .sorted { ($0.2, $0.0) < ($1.2, $1.0) }
                .prefix(limit)
        }
        let results = found.map { Components.Schemas.NearestDevices.ResultsPayloadPayload(device: .init(id: $0.0, lastFix: .init($0.1)), distance: $0.2) }
        return .ok(.init(body: .json(.init(results: results))))
    }

    /// Seconds from which a `maxAge` limits nothing (and would overflow an instant's microseconds).
    static let unlimitedAge = 1e10

    func subscriptionsContaining(_ input: Operations.SubscriptionsContaining.Input) async throws -> Operations.SubscriptionsContaining.Output {
        let body = switch input.body { case .json(let body): body }
        let point: Coordinate
        do { point = try Coordinate(body.point) } catch { throw error.nested(under: "point") }
        let found = try await tracking.tracker.read { $0.regionsContaining(point) }
        return .ok(.init(body: .json(.init(subscriptions: found.map { .init(subscription: .init($0.subscription), distanceToBoundary: $0.distanceToBoundary) }))))
    }

    func listSubscriptionOccupants(_ input: Operations.ListSubscriptionOccupants.Input) async throws -> Operations.ListSubscriptionOccupants.Output {
        let subscription = try await liveSubscription(input.path.subscriptionId)
        guard subscription.region != nil else {
            throw ProblemError(.notFound, detail: "subscription \(subscription.id) is not a region subscription: only regions have occupants")
        }
        let limit = try Paging.limit(input.query.limit)
        let cursor = input.query.cursor
        let page = try await tracking.tracker.read { state in
            state.occupants(of: subscription.id).filter { occupant in cursor.map { occupant.deviceId > $0 } ?? true }.prefix(limit + 1)
        }
        let occupants = page.prefix(limit).compactMap { occupant -> Components.Schemas.OccupantPage.OccupantsPayloadPayload? in
            guard let location = occupant.progress.lastEvaluated else { return nil }
            return .init(deviceId: occupant.deviceId, enteredAt: occupant.progress.enteredAt?.rfc3339, dwelling: occupant.progress.dwellNotified, location: .init(location))
        }
        return .ok(.init(body: .json(.init(occupants: occupants, nextCursor: page.count > limit ? occupants.last?.deviceId : nil))))
    }
}
