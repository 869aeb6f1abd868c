import MeridianHTTP
import Geodesy
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Tracking
import WireJSON

/// A subscription request checked field by field: every invalid field is listed in one 422.
struct SubscriptionRequest {
    var name: String?
    var properties: [String: JSONValue]
    var deviceIds: [String]?
    var groups: [String]?
    var maxLocationAge: Double?
    var maxHorizontalAccuracy: Double?
    var rule: Subscription.Rule

    /// `"maxLocationAge": null` (in the request's ``SubscriptionCreation/nulls``) is no limit; absent is the default, 15 s.
    init(_ wire: Components.Schemas.SubscriptionInput) throws(FieldErrors) {
        let maxLocationAgeIsNull = wire.nulls.contains("maxLocationAge")
        var errors = FieldErrors()
        func check(_ value: Double?, _ field: String) {
            if let value { _ = errors.value { () throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0) } }
        }
        let common: (name: String?, properties: OpenAPIObjectContainer?, deviceIds: [String]?, groups: [String]?, maxLocationAge: Double?, maxHorizontalAccuracy: Double?) =
            switch wire.kind {
            case .significantChange(let input): (input.name, input.properties, input.deviceIds, input.groups, input.maxLocationAge, input.maxHorizontalAccuracy)
            case .region(let input): (input.name, input.properties, input.deviceIds, input.groups, input.maxLocationAge, input.maxHorizontalAccuracy)
            case .status(let input): (input.name, input.properties, input.deviceIds, input.groups, input.maxLocationAge, input.maxHorizontalAccuracy)
            case .visits(let input): (input.name, input.properties, input.deviceIds, input.groups, input.maxLocationAge, input.maxHorizontalAccuracy)
            }
        name = common.name
        properties = JSONValue.members(of: common.properties, at: ["properties"])
        if let name { _ = errors.value { () throws(FieldError) in try Subscription.check(name: name) } }
        _ = errors.value { [properties] () throws(FieldError) in try Subscription.check(properties: properties) }
        if common.deviceIds?.isEmpty == true { errors.record(at: ["deviceIds"], "must list at least one device (leave it out for every device)") }
        for (index, id) in (common.deviceIds ?? []).enumerated() where !DeviceIdentifier.isValid(id) {
            errors.record(at: ["deviceIds", String(index)], DeviceIdentifier.rule)
        }
        if let groups = common.groups {
            if groups.isEmpty { errors.record(at: ["groups"], "must list at least one group (leave it out for none)") }
            if groups.count > DeviceProfile.maxGroups { errors.record(at: ["groups"], "must list at most \(DeviceProfile.maxGroups) groups, got \(groups.count)") }
            for (index, name) in groups.enumerated() where !DeviceGroup.isValid(name: name) { errors.record(at: ["groups", String(index)], DeviceGroup.nameRule) }
            if Set(groups).count != groups.count { errors.record(at: ["groups"], "must not repeat a group") }
        }
        groups = common.groups
        check(common.maxLocationAge, "maxLocationAge")
        check(common.maxHorizontalAccuracy, "maxHorizontalAccuracy")
        deviceIds = common.deviceIds
        maxLocationAge = maxLocationAgeIsNull ? nil : (common.maxLocationAge ?? Subscription.defaultMaxLocationAge)
        maxHorizontalAccuracy = common.maxHorizontalAccuracy

        switch wire.kind {
        case .significantChange(let input):
            check(input.distanceFilter, "distanceFilter")
            check(input.minimumInterval, "minimumInterval")
            try errors.check()
            rule = .significantChange(SignificantChangeRule(
                distanceFilter: input.distanceFilter ?? SignificantChangeRule.defaultDistanceFilter,
                minimumInterval: input.minimumInterval ?? SignificantChangeRule.defaultMinimumInterval))
        case .region(let input):
            check(input.hysteresis, "hysteresis")
            check(input.dwell, "dwell")
            if let detect = input.detect, Set(detect).count != detect.count { errors.record(at: ["detect"], "must not repeat a value") }
            let shape = Self.shape(input.region, &errors)
            rule = .region(RegionRule(
                shape: try errors.check(shape),
                notifyOnEntry: input.notifyOnEntry ?? true, notifyOnExit: input.notifyOnExit ?? true,
                hysteresis: input.hysteresis ?? RegionRule.defaultHysteresis, dwell: input.dwell, initialTrigger: input.initialTrigger ?? true,
                detectCrossings: input.detect?.contains(.cross) ?? false
            ))
        case .status(let input):
            let status = StatusRule(
                offlineAfter: input.offlineAfter, stoppedAfter: input.stoppedAfter, stoppedSpeed: input.stoppedSpeed ?? StatusRule.defaultStoppedSpeed)
            _ = errors.value { () throws(FieldError) in try status.check() }
            try errors.check()
            rule = .status(status)
        case .visits(let input):
            let radius = input.radius ?? StayRule.defaultRadius, duration = input.minimumDuration ?? StayRule.defaultMinimumDuration
            _ = errors.value { () throws(FieldError) in try StayRule.check(radius: radius) }
            _ = errors.value { () throws(FieldError) in try StayRule.check(minimumDuration: duration) }
            try errors.check()
            rule = .visits(StayRule(radius: radius, minimumDuration: duration))
        }
    }

    /// The region: a circle (centre valid, radius 10 m … 1 000 km), a polygon of rings of valid
    /// positions, at most ``PolygonShape/maximumPositions`` in all (what the even-odd rule puts
    /// inside them), or a corridor; nil after recording what is wrong with it.
    static func shape(_ wire: Components.Schemas.RegionShape, _ errors: inout FieldErrors) -> RegionShape? {
        switch wire {
        case .CircleRegion(let region):
            let circle = region.circle
            let center = errors.value(at: ["region", "circle", "center"]) { () throws(FieldError) in try Coordinate(circle.center) }
            let radii = RegionShape.minimumRadius...RegionShape.maximumRadius
            guard circle.radius.isFinite, radii.contains(circle.radius) else {
                errors.record(at: ["region", "circle", "radius"], "must be \(Int(radii.lowerBound))…\(Int(radii.upperBound)) metres")
                return nil
            }
            return center.map { .circle(center: $0, radius: circle.radius) }
        case .PolygonRegion(let polygon):
            let rings = polygon.coordinates
            guard !rings.isEmpty else {
                errors.record(at: ["region", "coordinates"], "must hold at least the exterior ring")
                return nil
            }
            let positions = rings.reduce(0) { $0 + $1.count }
            guard positions <= PolygonShape.maximumPositions else {
                errors.record(at: ["region", "coordinates"], "must hold at most \(PolygonShape.maximumPositions) positions in all rings together, got \(positions)")
                return nil
            }
            let before = errors.total
            let coordinates = rings.enumerated().map { r, ring in
                if ring.count < PolygonShape.minimumRingPositions {
                    errors.record(at: ["region", "coordinates", String(r)], "must hold at least \(PolygonShape.minimumRingPositions) positions")
                }
                return ring.enumerated().compactMap { p, position in Self.position(position, at: ["region", "coordinates", String(r), String(p)], &errors) }
            }
            guard errors.total == before, let shape = PolygonShape(GeoPolygon(exterior: coordinates[0], holes: Array(coordinates.dropFirst()))) else { return nil }
            return .polygon(shape)
        case .CorridorRegion(let region):
            return corridor(region.corridor, &errors)
        }
    }

    /// A GeoJSON position `[longitude, latitude(, altitude)]` as a coordinate; nil after recording what is wrong with it.
    private static func position(_ position: [Double], at path: [String], _ errors: inout FieldErrors) -> Coordinate? {
        errors.value(at: path) { () throws(FieldError) in
            guard position.count == 2 || position.count == 3 else { throw FieldError(path: [], message: "must be [longitude, latitude]") }
            do throws(FieldError) { return try Coordinate(validatingLatitude: position[1], longitude: position[0]) } catch {
                throw FieldError(path: [], message: "\(error.path.first.map { "\($0) " } ?? "")\(error.message)")
            }
        }
    }

    /// A corridor: 2…10 000 valid positions that GEOS finds a valid line, width 1 m … 50 km.
    private static func corridor(_ wire: Components.Schemas.CorridorRegion.CorridorPayload, _ errors: inout FieldErrors) -> RegionShape? {
        let at = ["region", "corridor"]
        let before = errors.total
        let positions = wire.line.coordinates
        if !CorridorShape.vertexCounts.contains(positions.count) {
            errors.record(at: at + ["line", "coordinates"], "must hold \(CorridorShape.vertexCounts.lowerBound)…\(CorridorShape.vertexCounts.upperBound) positions, got \(positions.count)")
        }
        let line = positions.enumerated().compactMap { p, position in Self.position(position, at: at + ["line", "coordinates", String(p)], &errors) }
        if !(wire.width.isFinite && CorridorShape.widths.contains(wire.width)) {
            errors.record(at: at + ["width"], "must be \(Int(CorridorShape.widths.lowerBound))…\(Int(CorridorShape.widths.upperBound)) metres")
        }
        guard errors.total == before else { return nil }
        do { try GeoLine(line).validate() } catch {
            errors.record(at: at + ["line"], "is not a valid line: \(error)")
            return nil
        }
        return CorridorShape(line: line, width: wire.width).map(RegionShape.corridor)
    }
}

