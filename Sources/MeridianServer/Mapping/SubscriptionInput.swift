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
    init(_ wire: Components.Schemas.SubscriptionInput, maxLocationAgeIsNull: Bool) throws(ProblemError) {
        var errors: [ProblemDetails.FieldError] = []
        func check(_ value: Double?, _ field: String, atLeast minimum: Double, strictly: Bool = false) {
            guard let value else { return }
            if !value.isFinite || value < minimum || (strictly && value == minimum) {
                errors.append(.init(pointer: "/\(field)", detail: "must be a number \(strictly ? "above" : "of at least") \(minimum)"))
            }
        }
        if let deviceIds = wire.deviceIds {
            for (index, id) in deviceIds.enumerated() where !DeviceIdentifier.isValid(id) {
                errors.append(.init(pointer: "/deviceIds/\(index)", detail: DeviceIdentifier.rule))
            }
        }
        check(wire.maxLocationAge, "maxLocationAge", atLeast: 0)
        check(wire.maxHorizontalAccuracy, "maxHorizontalAccuracy", atLeast: 0)
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
                errors.append(.init(pointer: "/\(field)", detail: "belongs to region subscriptions, not significantChange"))
            }
            check(wire.distanceFilter, "distanceFilter", atLeast: 0)
            check(wire.minimumInterval, "minimumInterval", atLeast: 0)
            rule = .significantChange(SignificantChangeRule(
                distanceFilter: wire.distanceFilter ?? SignificantChangeRule.defaultDistanceFilter,
                minimumInterval: wire.minimumInterval ?? SignificantChangeRule.defaultMinimumInterval))
        case .region:
            for (field, present) in significantFields where present {
                errors.append(.init(pointer: "/\(field)", detail: "belongs to significantChange subscriptions, not region"))
            }
            check(wire.hysteresis, "hysteresis", atLeast: 0)
            check(wire.dwell, "dwell", atLeast: 0)
            var shape: RegionShape?
            if let region = wire.region {
                do { shape = try Self.shape(region) } catch { errors += error.problem.errors ?? [] }
            } else {
                errors.append(.init(pointer: "/region", detail: "is required for a region subscription: a circle or a GeoJSON Polygon"))
            }
            rule = .region(RegionRule(
                shape: shape ?? .circle(center: Coordinate(latitude: 0, longitude: 0), radius: RegionShape.minimumRadius),
                notifyOnEntry: wire.notifyOnEntry ?? true, notifyOnExit: wire.notifyOnExit ?? true,
                hysteresis: wire.hysteresis ?? RegionRule.defaultHysteresis, dwell: wire.dwell, initialTrigger: wire.initialTrigger ?? true
            ))
        }
        if !errors.isEmpty { throw ProblemError.invalid(errors) }
    }

    /// The region: a circle (centre valid, radius ≥ 10 m) or a GEOS-valid GeoJSON Polygon.
    private static func shape(_ wire: Components.Schemas.RegionShape) throws(ProblemError) -> RegionShape {
        switch (wire.circle, wire._type, wire.coordinates) {
        case (let circle?, nil, nil):
            var errors: [ProblemDetails.FieldError] = []
            var center: Coordinate?
            do { center = try Coordinate(circle.center) } catch {
                errors.append(.init(pointer: JSONPointer.make(["region", "circle", "center"] + error.path), detail: error.message))
            }
            if !circle.radius.isFinite || circle.radius < RegionShape.minimumRadius || circle.radius > RegionShape.maximumRadius {
                errors.append(.init(pointer: "/region/circle/radius", detail: "must be \(Int(RegionShape.minimumRadius))…\(Int(RegionShape.maximumRadius)) metres"))
            }
            guard let center, errors.isEmpty else { throw ProblemError.invalid(errors) }
            return .circle(center: center, radius: circle.radius)
        case (nil, .polygon?, let rings?):
            var errors: [ProblemDetails.FieldError] = []
            var coordinates: [[Coordinate]] = []
            for (r, ring) in rings.enumerated() {
                var points: [Coordinate] = []
                for (p, position) in ring.enumerated() {
                    let pointer = "/region/coordinates/\(r)/\(p)"
                    guard position.count == 2 || position.count == 3 else {
                        errors.append(.init(pointer: pointer, detail: "must be [longitude, latitude]"))
                        continue
                    }
                    do { points.append(try Coordinate(validatingLatitude: position[1], longitude: position[0])) } catch {
                        errors.append(.init(pointer: pointer, detail: "\(error.path.first.map { "\($0) " } ?? "")\(error.message)"))
                    }
                }
                coordinates.append(points)
            }
            if rings.isEmpty { errors.append(.init(pointer: "/region/coordinates", detail: "must hold at least the exterior ring")) }
            guard errors.isEmpty else { throw ProblemError.invalid(errors) }
            do {
                return .polygon(try PolygonShape(GeoPolygon(exterior: coordinates[0], holes: Array(coordinates.dropFirst()))))
            } catch {
                let reason = if case .invalidGeometry(let reason) = error { reason } else { "GEOS could not check it" }
                throw ProblemError.invalid(pointer: "/region/coordinates", "is not a valid polygon: \(reason)")
            }
        default:
            throw ProblemError.invalid(pointer: "/region", "must be either {\"circle\": {\"center\", \"radius\"}} or a GeoJSON Polygon {\"type\": \"Polygon\", \"coordinates\"}")
        }
    }
}

/// What a device id may be: the feed's own name, printable and short.
enum DeviceIdentifier {
    static let rule = "must be 1…128 characters of letters, digits and - _ . : @"

    static func isValid(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "-_.:@".unicodeScalars.contains(scalar)
        }
    }
}
