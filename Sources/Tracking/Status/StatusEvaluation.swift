import Geodesy
import MapGeometry
import Timeline

/// The status rules, as pure functions of a device's status and its next fix or the clock.
///
/// - `offline` is due at the latest evaluated fix's timestamp + `offlineAfter`; the next fix after
///   an `offline` emits `online` (at that fix).
/// - `stopped` is due at the first fix below `stoppedSpeed` after one at or above it (or the first
///   fix the subscription evaluates) + `stoppedAfter`; a fix at or above `stoppedSpeed` before then
///   cancels it, and after a `stopped` emits `moving` (at that fix).
/// - A fix's speed is its `speed` (Core Location: negative is invalid, as absent), else the geodesic
///   distance from the device's previous fix over the time between them; a fix whose speed cannot
///   be known (no speed, no earlier fix) counts as below `stoppedSpeed`.
/// - A deadline is reached by a fix with a later timestamp (it fires first, at its own time, with
///   the device's location then) and by the clock at or after it; a fix at the deadline's instant
///   moves it instead.
enum StatusEvaluation {
    /// A status event before it has an id and a sequence.
    struct Emission: Hashable {
        var kind: TrackingEvent.Kind
        /// When it happened: the deadline, or the fix's time.
        var at: Instant
    }

    /// The deadlines `status` has reached by `instant` (before it, or at it too when `inclusive`),
    /// in time order, taken out of `status` as its flags say.
    static func reached(_ status: inout DeviceStatus, by instant: Instant, inclusive: Bool) -> [Emission] {
        func reached(_ deadline: Instant?) -> Bool {
            guard let deadline else { return false }
            return inclusive ? deadline <= instant : deadline < instant
        }
        var emissions: [Emission] = []
        if reached(status.offlineAt), let at = status.offlineAt { emissions.append(Emission(kind: .offline, at: at)) }
        if reached(status.stoppedAt), let at = status.stoppedAt { emissions.append(Emission(kind: .stopped, at: at)) }
        for emission in emissions { status.reach(emission.kind) }
        return emissions.sorted { $0.at < $1.at }
    }

    /// Evaluates `fix` (after ``reached(_:by:inclusive:)`` took out the deadlines before it):
    /// `online` and `moving` where they are due, and the new deadlines.
    /// - Parameter previous: the device's accepted fix before `fix`, if any.
    static func evaluate(_ rule: StatusRule, _ status: inout DeviceStatus, _ fix: LocationFix, previous: LocationFix?) -> [Emission] {
        var emissions: [Emission] = []
        if let offlineAfter = rule.offlineAfter {
            if status.offline { emissions.append(Emission(kind: .online, at: fix.timestamp)) }
            status.offline = false
            status.offlineAt = fix.timestamp.adding(seconds: offlineAfter)
            status.followsLastFix = true
        }
        if let stoppedAfter = rule.stoppedAfter {
            if (speed(of: fix, after: previous) ?? 0) >= rule.stoppedSpeed {
                if status.stopped { emissions.append(Emission(kind: .moving, at: fix.timestamp)) }
                status.stopped = false
                status.stoppedAt = nil
            } else if !status.stopped && status.stoppedAt == nil {
                status.stoppedAt = fix.timestamp.adding(seconds: stoppedAfter)
            }
        }
        return emissions
    }

    /// Metres per second: the fix's own speed when valid, else from the previous fix's position.
    static func speed(of fix: LocationFix, after previous: LocationFix?) -> Double? {
        if let speed = fix.speed, speed >= 0 { return speed }
        guard let previous else { return nil }
        let seconds = fix.timestamp.seconds(since: previous.timestamp)
        guard seconds > 0 else { return nil }
        return Geodesic.wgs84.inverse(from: previous.coordinate, to: fix.coordinate).distance / seconds
    }

    /// `status` under `rule` after an edit from `old`: each pending deadline moved by the change
    /// of its delay (it still counts from the same fix), a half turned off cleared, a half turned
    /// on for `offline` counting from `lastFix` (`stopped` waits for the next fix: speeds are not kept).
    static func edited(_ status: DeviceStatus, from old: StatusRule, to rule: StatusRule, lastFix: LocationFix?) -> DeviceStatus {
        var status = status
        switch (old.offlineAfter, rule.offlineAfter) {
        case (_, nil): (status.offline, status.offlineAt, status.followsLastFix) = (false, nil, false)
        case (let before?, let after?):
            // One rule with loading's (the last fix + the delay) where the deadline follows the last fix.
            status.offlineAt = status.followsLastFix && status.offlineAt != nil ? lastFix?.timestamp.adding(seconds: after) : status.offlineAt?.adding(seconds: after - before)
        case (nil, let after?): (status.offlineAt, status.followsLastFix) = (lastFix?.timestamp.adding(seconds: after), lastFix != nil)
        }
        switch (old.stoppedAfter, rule.stoppedAfter) {
        case (_, nil): (status.stopped, status.stoppedAt) = (false, nil)
        case (let before?, let after?): status.stoppedAt = status.stoppedAt?.adding(seconds: after - before)
        case (nil, _?): break
        }
        return status
    }
}

extension DeviceStatus {
    /// Takes `kind`'s deadline as reached: its flag set, the deadline gone.
    mutating func reach(_ kind: TrackingEvent.Kind) {
        switch kind {
        case .offline: (offline, offlineAt, followsLastFix) = (true, nil, false)
        case .stopped: (stopped, stoppedAt) = (true, nil)
        default: break
        }
    }
}
