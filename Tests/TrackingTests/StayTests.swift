import Foundation
import Geodesy
import MapGeometry
import Testing
import Tracking
import Timeline
import TestSupport

/// The stay rule (``StayRun``), the batch segmentation into stops and trips (``StaySegmenter``)
/// and the visits evaluation, checked against values worked out independently here: weighted
/// means by hand, every fix measured with the geodesic, distances summed leg by leg.
@Suite struct StayTests {
    static let start = ScenarioTests.start
    static let depot = Coordinate(latitude: 48.8566, longitude: 2.3522)

    static func at(_ metres: Double, _ azimuth: Double = 90, from origin: Coordinate = depot) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: metres).coordinate
    }

    static func fix(_ c: Coordinate, _ seconds: Double, accuracy: Double = 10, speed: Double? = nil) -> LocationFix {
        LocationFix(coordinate: c, timestamp: start.adding(seconds: seconds), horizontalAccuracy: accuracy, speed: speed)
    }

    @Test func centreIsTheMeanWeightedByInverseSquaredAccuracy() throws {
        let a = Coordinate(latitude: 10, longitude: 20), b = Coordinate(latitude: 10.0004, longitude: 20.0008)
        let run = try #require(StayRun(Self.fix(a, 0, accuracy: 10)).adding(Self.fix(b, 60, accuracy: 20), radius: 100))
        // Weights 1/100 and 1/400: the centre is a fifth of the way from a to b.
        #expect(abs(run.centre.latitude - 10.00008) < 1e-12)
        #expect(abs(run.centre.longitude - 20.00016) < 1e-12)
        #expect(abs(run.horizontalAccuracy - 80.0.squareRoot()) < 1e-12)
        #expect(run.count == 2 && run.duration == 60)
    }

    @Test func accuracyBelowOneMetreWeighsAsOneMetre() {
        #expect(StayRun.weight(0) == 1 && StayRun.weight(0.25) == 1 && StayRun.weight(2) == 0.25)
    }

    @Test func aRunStraddlesTheAntimeridian() throws {
        let east = Coordinate(latitude: -16.5, longitude: 179.9996), west = Coordinate(latitude: -16.5, longitude: -179.9996)
        let run = try #require(StayRun(Self.fix(east, 0)).adding(Self.fix(west, 30), radius: 100))
        #expect(abs(abs(run.centre.longitude) - 180) < 1e-9)
        #expect(Geodesic.wgs84.inverse(from: run.centre, to: east).distance < 50)
    }

    @Test func aFixThatPullsAnEarlierOneOutOfRadiusEndsTheRun() throws {
        // 0 m, 80 m, then 250 m: with equal weights the centre of the three is 110 m out and the first fix 110 m from it.
        var run = StayRun(Self.fix(Self.depot, 0))
        run = try #require(run.adding(Self.fix(Self.at(80), 10), radius: 100))
        #expect(run.adding(Self.fix(Self.at(250), 20), radius: 100) == nil)
        #expect(run.adding(Self.fix(Self.at(150), 20), radius: 100) != nil)  // centre 76.7 m out: every fix within 100 m
    }

    /// The hull's verdict equals checking every fix against the centre, over random noisy stays.
    @Test(arguments: [1, 2, 3, 4, 5]) func hullDecidesAsCheckingEveryFix(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var run: StayRun?
        var fixes: [LocationFix] = []
        var decisions = 0
        for index in 0..<400 {
            let fix = Self.fix(Self.at(Double.random(in: 0...90, using: &random), Double.random(in: 0..<360, using: &random)), Double(index) * 10,
                               accuracy: Double.random(in: 3...40, using: &random))
            guard let current = run else { (run, fixes) = (StayRun(fix), [fix]); continue }
            let candidate = fixes + [fix]
            let weights = candidate.map { 1 / pow(max($0.horizontalAccuracy, 1), 2) }
            let total = weights.reduce(0, +)
            let centre = Coordinate(
                latitude: zip(candidate, weights).reduce(0) { $0 + $1.0.coordinate.latitude * $1.1 } / total,
                longitude: zip(candidate, weights).reduce(0) { $0 + $1.0.coordinate.longitude * $1.1 } / total)
            let farthest = candidate.map { Geodesic.wgs84.inverse(from: centre, to: $0.coordinate).distance }.max()!
            guard abs(farthest - 100) > 0.01 else { continue }  // too close to call either way
            decisions += 1
            if let joined = current.adding(fix, radius: 100) {
                #expect(farthest <= 100)
                (run, fixes) = (joined, candidate)
            } else {
                #expect(farthest > 100)
                (run, fixes) = (StayRun(fix), [fix])
            }
            #expect((run?.hull.vertices.count ?? 0) <= (run?.count ?? 0))
        }
        #expect(decisions > 300)
    }

    @Test func aDayOfTwoStopsGivesTheStopsAndTheTripBetween() throws {
        var segmenter = StaySegmenter(rule: StayRule())
        var t = 0.0
        var fixes: [LocationFix] = []
        // 10 minutes at the depot, fixes every 30 s within 20 m.
        for i in 0..<21 { fixes.append(Self.fix(Self.at(Double(i % 3) * 10, 0), t)); t += 30 }
        // 2 km east at 10 m/s, a fix every 20 s, speed reported on all but two.
        var path: [LocationFix] = []
        for step in 1...9 { path.append(Self.fix(Self.at(Double(step) * 200), t, speed: step == 4 || step == 5 ? nil : 10)); t += 20 }
        fixes += path
        // 8 minutes at the shop, 2 km east.
        let shop = Self.at(2_000)
        for i in 0..<17 { fixes.append(Self.fix(Self.at(Double(i % 2) * 15, 180, from: shop), t)); t += 30 }
        for fix in fixes { segmenter.add(fix) }
        segmenter.finish()
        #expect(segmenter.stops.count == 2)
        #expect(segmenter.trips.count == 1)
        let (depotStop, shopStop) = (segmenter.stops[0], segmenter.stops[1])
        #expect(depotStop.arrival == Self.start && depotStop.departure == Self.start.adding(seconds: 600) && depotStop.fixCount == 21)
        #expect(shopStop.departure == nil && shopStop.fixCount == 17)
        let trip = segmenter.trips[0]
        #expect(trip.start == depotStop.departure && trip.end == shopStop.arrival && trip.fixCount == 9)
        // Leg by leg: the depot's centre, the nine fixes, the shop's centre.
        let points = [depotStop.centre] + path.map(\.coordinate) + [shopStop.centre]
        let legs = zip(points, points.dropFirst()).map { Geodesic.wgs84.inverse(from: $0, to: $1).distance }
        #expect(abs(trip.distance - legs.reduce(0, +)) < 1e-6)
        #expect(abs(trip.duration - 210) < 1e-9)  // from 600 s to 810 s
        // Reported 10 m/s, except the two fixes without speed: 200 m in 20 s; the end leg from positions.
        let endLeg = legs.last! / 20
        #expect(abs(trip.maximumSpeed - max(10, legs[4] / 20, legs[5] / 20, endLeg)) < 1e-9)
    }

    @Test func aTunnelGapIsNoStop() {
        var segmenter = StaySegmenter(rule: StayRule())
        // Into the tunnel at 0 s, out 3 km on at 900 s: two fixes, 15 minutes apart, far apart.
        for (i, metres) in [0.0, 100, 200].enumerated() { segmenter.add(Self.fix(Self.at(metres), Double(i) * 10)) }
        for (i, metres) in [3_200.0, 3_300, 3_400].enumerated() { segmenter.add(Self.fix(Self.at(metres), 900 + Double(i) * 10)) }
        segmenter.finish()
        #expect(segmenter.stops.isEmpty)
    }

    @Test func visitsAnnounceArrivalAtTheFixCompletingTheDurationAndDepartureAtTheFirstOutside() throws {
        var feed = ScenarioTests.Feed()
        feed.subscribe(.visits(StayRule(radius: 100, minimumDuration: 300)))
        let place = ScenarioTests.at(3_000)
        var fixes = (0..<12).map { ScenarioTests.fix(ScenarioTests.at(Double($0 % 3) * 8, 0, from: place), Double($0) * 60) }
        fixes.append(ScenarioTests.fix(ScenarioTests.at(600, 90, from: place), 720))
        feed.post(fixes)
        #expect(feed.kinds == [.visitArrival, .visitDeparture])
        let arrival = feed.events[0], departure = feed.events[1]
        #expect(arrival.occurredAt == ScenarioTests.start.adding(seconds: 300))
        #expect(arrival.visit?.arrival == ScenarioTests.start && arrival.visit?.departure == nil)
        // Up to the arrival: fixes 0…5 at 0, 8, 16, 0, 8, 16 m north (equal weights): the centre 8 m north.
        let arrivalCentre = try #require(arrival.visit?.centre)
        #expect(abs(Geodesic.wgs84.inverse(from: arrivalCentre, to: ScenarioTests.at(8, 0, from: place)).distance) < 0.01)
        #expect(departure.occurredAt == ScenarioTests.start.adding(seconds: 720))
        #expect(departure.visit?.departure == ScenarioTests.start.adding(seconds: 660))
        #expect(departure.location.timestamp == departure.occurredAt)
    }

    @Test func aStayShorterThanTheMinimumIsNoVisit() {
        var feed = ScenarioTests.Feed()
        feed.subscribe(.visits(StayRule(radius: 100, minimumDuration: 300)))
        let fixes = (0..<5).map { ScenarioTests.fix(ScenarioTests.at(Double($0) * 5), Double($0) * 60) } + [ScenarioTests.fix(ScenarioTests.at(900), 290)]
        feed.post(fixes.sorted { $0.timestamp < $1.timestamp })
        #expect(feed.events.isEmpty)
    }
}

extension StayTests {
    /// Event time: a late fix is history (no subscription evaluates it), a stale one is skipped;
    /// neither ends nor extends the run under way.
    @Test func lateAndSkippedFixesLeaveTheRunAsItIs() throws {
        var feed = ScenarioTests.Feed()
        let id = feed.subscribe(.visits(StayRule(radius: 100, minimumDuration: 300)), maxLocationAge: 15)
        let place = ScenarioTests.at(3_000)
        for minute in 0..<4 { feed.post([ScenarioTests.fix(place, Double(minute) * 60)]) }
        let key = ProgressKey(subscriptionId: id, deviceId: "d1")
        let before = try #require(feed.state.progress[key]?.stay)
        // Far away but older than the newest fix: late.
        let late = feed.post([ScenarioTests.fix(ScenarioTests.at(5_000), 90)])
        #expect(late.results.map(\.status) == [.late])
        // Far away, new, but received a minute after it was taken: stale for this subscription.
        let stale = ScenarioTests.fix(ScenarioTests.at(5_000), 200)
        feed.post([stale], receivedAt: stale.timestamp.adding(seconds: 60))
        #expect(feed.state.progress[key]?.stay == before && feed.events.isEmpty)
        // The next fix at the place, at 5 min, completes the stay.
        feed.post([ScenarioTests.fix(place, 300)])
        #expect(feed.kinds == [.visitArrival] && feed.events[0].visit?.arrival == ScenarioTests.start)
    }
}
