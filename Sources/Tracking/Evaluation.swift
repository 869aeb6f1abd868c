import Geodesy
import MapGeometry
import Timeline

/// The evaluators: given where a subscription stands with a device and the next fix it
/// evaluates, what it emits and where it then stands. Pure functions of their arguments.
enum Evaluation {
    /// An event before it has an id and a sequence.
    struct Emission: Hashable {
        var kind: TrackingEvent.Kind
        var previous: LocationFix?
        /// Where and when it happened, when not at the fix: a place interpolated between two fixes.
        var interpolated: LocationFix?
        /// The stay of a visit event.
        var visit: Visit?
    }

    /// Core Location's significant-change rule: the first evaluated fix is `initial`; after that
    /// a fix at least `distanceFilter` metres (geodesic) from the last notified location and at
    /// least `minimumInterval` seconds after it (event time).
    static func significantChange(_ rule: SignificantChangeRule, _ progress: inout SubscriptionProgress, _ fix: LocationFix) -> [Emission] {
        progress.lastEvaluated = fix
        guard let notified = progress.lastNotified else {
            progress.lastNotified = fix
            return [Emission(kind: .initial, previous: nil)]
        }
        guard fix.timestamp.seconds(since: notified.timestamp) >= rule.minimumInterval,
              Geodesic.wgs84.inverse(from: notified.coordinate, to: fix.coordinate).distance >= rule.distanceFilter
        else { return [] }
        progress.lastNotified = fix
        return [Emission(kind: .significantChange, previous: notified)]
    }

    /// Region monitoring. The first evaluated fix is classified by plain containment (and emits
    /// `enter` when inside and `initialTrigger`); after that the state changes only when a fix is
    /// `hysteresis + horizontalAccuracy` metres past the boundary. `dwell` once per stay.
    /// With `detectCrossings`, a fix that leaves the device outside where the one before also did
    /// is checked for a passage between them (``SegmentPassage``, as deep as the hysteresis and the
    /// larger accuracy of the two): `enter` and `exit` at the interpolated places and times.
    /// - Parameter evaluatedBefore: whether an earlier fix of the device was evaluated (and found
    ///   outside) although no progress was kept for it.
    /// - Parameter deviceFix: the device's fix before this one, the start of the segment when no
    ///   progress was kept.
    static func region(_ rule: RegionRule, _ progress: inout SubscriptionProgress, _ fix: LocationFix, evaluatedBefore: Bool, deviceFix: LocationFix? = nil) -> [Emission] {
        let previous = progress.lastEvaluated
        let wasOutside = (progress.inside ?? (evaluatedBefore ? false : nil)) == false
        progress.lastEvaluated = fix
        let distance = rule.shape.signedDistance(to: fix.coordinate)
        let margin = rule.hysteresis + fix.horizontalAccuracy
        var emissions: [Emission] = []
        switch progress.inside ?? (evaluatedBefore ? false : nil) {
        case nil:
            let inside = distance <= 0
            progress.inside = inside
            if inside {
                progress.enteredAt = fix.timestamp
                if rule.initialTrigger && rule.notifyOnEntry { emissions.append(Emission(kind: .enter, previous: previous)) }
            }
        case false?:
            progress.inside = false
            if distance <= -margin {
                progress.inside = true
                progress.enteredAt = fix.timestamp
                progress.dwellNotified = false
                if rule.notifyOnEntry { emissions.append(Emission(kind: .enter, previous: previous)) }
            }
        case true?:
            if distance >= margin {
                progress.inside = false
                progress.enteredAt = nil
                progress.dwellNotified = false
                if rule.notifyOnExit { emissions.append(Emission(kind: .exit, previous: previous)) }
            }
        }
        if rule.detectCrossings, wasOutside, progress.inside == false, let start = previous ?? deviceFix {
            emissions += crossing(rule, from: start, to: fix, endDistance: distance)
        }
        if progress.inside == true, let dwell = rule.dwell, !progress.dwellNotified,
           let enteredAt = progress.enteredAt, fix.timestamp.seconds(since: enteredAt) >= dwell {
            progress.dwellNotified = true
            emissions.append(Emission(kind: .dwell, previous: previous))
        }
        return emissions
    }

    /// `enter` and `exit` of a passage between two fixes outside, at interpolated fixes: the place
    /// on the geodesic, the time in proportion to the distance along it, the larger accuracy.
    /// No `dwell`: no fix saw the device inside.
    static func crossing(_ rule: RegionRule, from start: LocationFix, to end: LocationFix, endDistance: Double) -> [Emission] {
        let depth = rule.hysteresis + max(start.horizontalAccuracy, end.horizontalAccuracy)
        guard let passage = SegmentPassage.through(rule.shape, from: start.coordinate, to: end.coordinate, depth: depth, endDistance: endDistance) else { return [] }
        func fix(_ coordinate: Coordinate, at distance: Double) -> LocationFix {
            let span = Double(end.timestamp.microseconds - start.timestamp.microseconds)
            let at = Instant(microseconds: start.timestamp.microseconds + Int64((span * distance / passage.length).rounded()))
            return LocationFix(coordinate: coordinate, timestamp: at, horizontalAccuracy: max(start.horizontalAccuracy, end.horizontalAccuracy))
        }
        let entry = fix(passage.entryCoordinate, at: passage.entry), exit = fix(passage.exitCoordinate, at: passage.exit)
        var emissions: [Emission] = []
        if rule.notifyOnEntry { emissions.append(Emission(kind: .enter, previous: start, interpolated: entry)) }
        if rule.notifyOnExit { emissions.append(Emission(kind: .exit, previous: entry, interpolated: exit)) }
        return emissions
    }
}
