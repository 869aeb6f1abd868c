import Geodesy
import MapGeometry
import MeridianAPI
import Tracking

/// A subscription request checked field by field: every invalid field is listed in one 422.
struct SubscriptionRequest {
    var deviceIds: [String]?
    var maxLocationAge: Double?
    var maxHorizontalAccuracy: Double?
    var rule: Subscription.Rule

    /// - Parameter maxLocationAgeIsNull: whether the body said `"maxLocationAge": null` (no limit),
    ///   which the generated type cannot tell from an absent field (the default, 15 s).
    init(_ wire: Components.Schemas.SubscriptionInput, maxLocationAgeIsNull: Bool) throws(FieldErrors) {
        var errors = FieldErrors()
        func check(_ value: Double?, _ field: String) {
            if let value { _ = errors.value { () throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0) } }
        }
        for (index, id) in (wire.deviceIds ?? []).enumerated() where !DeviceIdentifier.isValid(id) {
            errors.record(at: ["deviceIds", String(index)], DeviceIdentifier.rule)
        }
        check(wire.maxLocationAge, "maxLocationAge")
        check(wire.maxHorizontalAccuracy, "maxHorizontalAccuracy")
        deviceIds = wire.deviceIds
        maxLocationAge = maxLocationAgeIsNull ? nil : (wire.maxLocationAge ?? Subscription.defaultMaxLocationAge)
        maxHorizontalAccuracy = wire.maxHorizontalAccuracy

        let regionFields: [(String, Bool)] = [
            ("region", wire.region != nil), ("notifyOnEntry", wire.notifyOnEntry != nil), ("notifyOnExit", wire.notifyOnExit != nil),
            ("hysteresis", wire.hysteresis != nil), ("dwell", wire.dwell != nil), ("initialTrigger", wire.initialTrigger != nil),
        ]
        let significantFields: [(String, Bool)] = [("distanceFilter", wire.distanceFilter != nil), ("minimumInterval", wire.minimumInterval != nil)]
        switch wire._type {
        case .significantChange:
            for (field, present) in regionFields where present {
                errors.record(at: [field], "belongs to region subscriptions, not significantChange")
            }
            check(wire.distanceFilter, "distanceFilter")
            check(wire.minimumInterval, "minimumInterval")
            try errors.check()
            rule = .significantChange(SignificantChangeRule(
                distanceFilter: wire.distanceFilter ?? SignificantChangeRule.defaultDistanceFilter,
                minimumInterval: wire.minimumInterval ?? SignificantChangeRule.defaultMinimumInterval))
        case .region:
            for (field, present) in significantFields where present {
                errors.record(at: [field], "belongs to significantChange subscriptions, not region")
            }
            check(wire.hysteresis, "hysteresis")
            check(wire.dwell, "dwell")
            var shape: RegionShape?
            if let region = wire.region {
                shape = Self.shape(region, &errors)
            } else {
                errors.record(at: ["region"], "is required for a region subscription: a circle or a GeoJSON Polygon")
            }
            rule = .region(RegionRule(
                shape: try errors.check(shape),
                notifyOnEntry: wire.notifyOnEntry ?? true, notifyOnExit: wire.notifyOnExit ?? true,
                hysteresis: wire.hysteresis ?? RegionRule.defaultHysteresis, dwell: wire.dwell, initialTrigger: wire.initialTrigger ?? true
            ))
        }
    }

    /// The region: a circle (centre valid, radius 10 m … 1 000 km) or a GEOS-valid GeoJSON Polygon;
    /// nil after recording what is wrong with it.
    private static func shape(_ wire: Components.Schemas.RegionShape, _ errors: inout FieldErrors) -> RegionShape? {
        switch (wire.circle, wire._type, wire.coordinates) {
        case (let circle?, nil, nil):
            let center = errors.value(at: ["region", "circle", "center"]) { () throws(FieldError) in try Coordinate(circle.center) }
            let radii = RegionShape.minimumRadius...RegionShape.maximumRadius
            guard circle.radius.isFinite, radii.contains(circle.radius) else {
                errors.record(at: ["region", "circle", "radius"], "must be \(Int(radii.lowerBound))…\(Int(radii.upperBound)) metres")
                return nil
            }
            return center.map { .circle(center: $0, radius: circle.radius) }
        case (nil, .polygon?, let rings?):
            guard !rings.isEmpty else {
                errors.record(at: ["region", "coordinates"], "must hold at least the exterior ring")
                return nil
            }
            let before = errors.total
            let coordinates = rings.enumerated().map { r, ring in
                ring.enumerated().compactMap { p, position in
                    errors.value(at: ["region", "coordinates", String(r), String(p)]) { () throws(FieldError) in
                        guard position.count == 2 || position.count == 3 else { throw FieldError(path: [], message: "must be [longitude, latitude]") }
                        do throws(FieldError) { return try Coordinate(validatingLatitude: position[1], longitude: position[0]) } catch {
                            throw FieldError(path: [], message: "\(error.path.first.map { "\($0) " } ?? "")\(error.message)")
                        }
                    }
                }
            }
            guard errors.total == before else { return nil }
            do {
                return .polygon(try PolygonShape(GeoPolygon(exterior: coordinates[0], holes: Array(coordinates.dropFirst()))))
            } catch {
                let reason = if case .invalidGeometry(let reason) = error { reason } else { "GEOS could not check it" }
                errors.record(at: ["region", "coordinates"], "is not a valid polygon: \(reason)")
                return nil
            }
        default:
            errors.record(at: ["region"], "must be either {\"circle\": {\"center\", \"radius\"}} or a GeoJSON Polygon {\"type\": \"Polygon\", \"coordinates\"}")
            return nil
        }
    }
}
