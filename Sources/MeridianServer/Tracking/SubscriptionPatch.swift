import MeridianHTTP
import MapGeometry
import MeridianAPI
import Tracking
import WireJSON

extension SubscriptionChange {
    /// A subscription patch checked field by field: every invalid field is listed in one 422. The
    /// patch's members as sent tell a `null` (remove) from an absent field.
    init(_ wire: Components.Schemas.SubscriptionPatch) throws(FieldErrors) {
        self.init()
        let members = wire.members
        var errors = FieldErrors()
        func removable<T>(_ field: String, _ value: T?) -> T?? {
            members[field] == .null ? .some(nil) : value.map { .some($0) }
        }
        func atLeastZero(_ value: Double?, _ field: String) -> Double? {
            guard let value else { return nil }
            return errors.value { () throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0); return value }
        }
        name = removable("name", wire.name)
        if let name = name ?? nil { _ = errors.value { () throws(FieldError) in try Subscription.check(name: name) } }
        properties = members["properties"]
        maxLocationAge = removable("maxLocationAge", atLeastZero(wire.maxLocationAge, "maxLocationAge"))
        maxHorizontalAccuracy = removable("maxHorizontalAccuracy", atLeastZero(wire.maxHorizontalAccuracy, "maxHorizontalAccuracy"))
        distanceFilter = atLeastZero(wire.distanceFilter, "distanceFilter")
        minimumInterval = atLeastZero(wire.minimumInterval, "minimumInterval")
        if let radius = wire.radius { self.radius = errors.value { () throws(FieldError) in try StayRule.check(radius: radius); return radius } }
        if let duration = wire.minimumDuration {
            minimumDuration = errors.value { () throws(FieldError) in try StayRule.check(minimumDuration: duration); return duration }
        }
        if let region = wire.region { shape = SubscriptionRequest.shape(region, &errors) }
        hysteresis = atLeastZero(wire.hysteresis, "hysteresis")
        dwell = removable("dwell", atLeastZero(wire.dwell, "dwell"))
        (notifyOnEntry, notifyOnExit, initialTrigger) = (wire.notifyOnEntry, wire.notifyOnExit, wire.initialTrigger)
        if members["detect"] == .null {
            detectCrossings = false
        } else if let detect = wire.detect {
            if Set(detect).count != detect.count { errors.record(at: ["detect"], "must not repeat a value") }
            detectCrossings = detect.contains(.cross)
        }
        offlineAfter = removable("offlineAfter", wire.offlineAfter)
        stoppedAfter = removable("stoppedAfter", wire.stoppedAfter)
        stoppedSpeed = wire.stoppedSpeed
        try errors.check()
    }
}
