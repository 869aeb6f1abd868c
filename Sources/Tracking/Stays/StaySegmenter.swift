import Geodesy
public import MapGeometry
public import Timeline

/// Cuts a device's fixes, taken in timestamp order, into stops (the stays of ``StayRun``) and the
/// trips between them, one fix at a time in bounded memory: the current run, and its fixes only
/// while it is shorter than `minimumDuration`. Movement before the first stop and after the last
/// is no trip (a trip runs between two stops).
public struct StaySegmenter: Sendable {
    public let rule: StayRule
    /// The stops ended so far, then (after ``finish()``) the one going on.
    public private(set) var stops: [Stop] = []
    /// The trips whose second stop has ended, then (after ``finish()``) the one into the stop going on.
    public private(set) var trips: [Trip] = []
    private var run: StayRun?
    /// The run's first fix (a trip's end stands for it).
    private var runFirst: LocationFix?
    /// The run's fixes while it is not a stay (they are movement if it ends so).
    private var pending: [LocationFix] = []
    /// The trip since the last stop ended.
    private var trip: TripPath?

    public init(rule: StayRule) { self.rule = rule }

    /// Takes the next fix (later than the one before).
    public mutating func add(_ fix: LocationFix) {
        if let run, let joined = run.adding(fix, radius: rule.radius) {
            self.run = joined
            if joined.isStay(rule) { pending.removeAll() } else { pending.append(fix) }
            return
        }
        if let run { end(run) }
        run = StayRun(fix)
        runFirst = fix
        pending = run!.isStay(rule) ? [] : [fix]
    }

    /// Ends the reading: a stay holding the last fix is a stop going on (and closes the trip into it).
    public mutating func finish() {
        guard let run, run.isStay(rule) else { return }
        closeTrip(into: run)
        stops.append(Stop(run, ended: false))
        self.run = nil
    }

    private mutating func end(_ run: StayRun) {
        guard run.isStay(rule) else {
            for fix in pending { trip?.add(fix) }
            return
        }
        closeTrip(into: run)
        stops.append(Stop(run, ended: true))
        trip = TripPath(from: run)
    }

    private mutating func closeTrip(into run: StayRun) {
        guard var path = trip, let runFirst else { return }
        trips.append(path.close(at: run.centre, time: run.first, speed: runFirst.speed, stopArrival: run.first))
        trip = nil
    }
}

/// A trip as it is read: the path so far and its sums.
private struct TripPath {
    let startCentre: Coordinate
    let start: Instant
    let startStopArrival: Instant
    var last: (coordinate: Coordinate, time: Instant)
    var distance = 0.0
    var maximumSpeed = 0.0
    var fixCount = 0

    init(from stop: StayRun) {
        (startCentre, start, startStopArrival) = (stop.centre, stop.last, stop.first)
        last = (stop.centre, stop.last)
    }

    mutating func add(_ fix: LocationFix) {
        step(to: fix.coordinate, time: fix.timestamp, speed: fix.speed)
        fixCount += 1
    }

    private mutating func step(to coordinate: Coordinate, time: Instant, speed: Double?) {
        let length = Geodesic.wgs84.inverse(from: last.coordinate, to: coordinate).distance
        let seconds = time.seconds(since: last.time)
        distance += length
        // A negative speed is none (Core Location's invalid).
        let reported = speed.flatMap { $0 >= 0 ? $0 : nil }
        maximumSpeed = max(maximumSpeed, reported ?? (seconds > 0 ? length / seconds : 0))
        last = (coordinate, time)
    }

    mutating func close(at centre: Coordinate, time: Instant, speed: Double?, stopArrival: Instant) -> Trip {
        step(to: centre, time: time, speed: speed)
        return Trip(start: start, end: time, startCentre: startCentre, endCentre: centre, distance: distance,
                    maximumSpeed: maximumSpeed, fixCount: fixCount, startStopArrival: startStopArrival)
    }
}
