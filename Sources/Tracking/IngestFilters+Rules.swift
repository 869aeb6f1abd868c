import Geodesy
public import MapGeometry
import Timeline

extension IngestFilters {
    /// The rule that drops `fix`, or nil when every rule keeps it: the one place the rules are
    /// written, a pure function of the settings, the fix and the device's last kept fix.
    ///
    /// - The rules are checked in ``Rule``'s order (`maxHorizontalAccuracy`, `minDistance`,
    ///   `minInterval`, `maxSpeed`), the order the schema lists them; the first that drops the fix
    ///   names it, so `filteredBy` is the same answer for the same fix on every instance.
    /// - Every limit is inclusive: a fix exactly at the accuracy limit, exactly `minDistance` away
    ///   (geodesic, WGS84), exactly `minInterval` later or moving exactly at `maxSpeed` is kept.
    /// - The last kept fix is the device's newest accepted fix (what the store keeps as the
    ///   device's last fix, so a restart or another instance answers the same). A device without
    ///   one (its first fix) is checked by the accuracy limit only, and so is a late fix (older
    ///   than the last kept one): the other rules measure the step from the last kept fix forward.
    ///
    /// - Parameters:
    ///   - fix: a fix that passed validation and is not a duplicate.
    ///   - lastKept: the device's newest accepted fix, if any.
    public func rule(dropping fix: LocationFix, lastKept: LocationFix?) -> Rule? {
        if let limit = maxHorizontalAccuracy, fix.horizontalAccuracy > limit { return .maxHorizontalAccuracy }
        guard let lastKept, fix.timestamp > lastKept.timestamp, minDistance != nil || minInterval != nil || maxSpeed != nil else { return nil }
        let interval = fix.timestamp.seconds(since: lastKept.timestamp)
        // Measured once, and only when a rule needs it.
        let distance = minDistance != nil || maxSpeed != nil ? Geodesic.wgs84.inverse(from: lastKept.coordinate, to: fix.coordinate).distance : 0
        if let limit = minDistance, distance < limit { return .minDistance }
        if let limit = minInterval, interval < limit { return .minInterval }
        if let limit = maxSpeed, distance / interval > limit { return .maxSpeed }
        return nil
    }
}

extension IngestFilters {
    /// Records each setting out of range under `path` (the tenant resource's root, or a device or
    /// group record's `ingestFilters`): distances, the interval and the accuracy limit at least 0,
    /// the speed above 0, all finite.
    public func check(at path: [String], into errors: inout FieldErrors) {
        func check(_ value: Double?, _ rule: Rule, _ test: (Double, String) throws(FieldError) -> Void) {
            guard let value else { return }
            _ = errors.value(at: path) { () throws(FieldError) in try test(value, rule.rawValue) }
        }
        check(maxHorizontalAccuracy, .maxHorizontalAccuracy) { value, field throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0) }
        check(minDistance, .minDistance) { value, field throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0) }
        check(minInterval, .minInterval) { value, field throws(FieldError) in try FieldError.check(value, field: field, atLeast: 0) }
        check(maxSpeed, .maxSpeed) { value, field throws(FieldError) in try FieldError.check(value, field: field, greaterThan: 0) }
    }
}
