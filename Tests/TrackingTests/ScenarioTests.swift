import Geodesy
import MapGeometry
import Testing
import Tracking
import Timeline

/// Event-time traces through the evaluators, positions laid out with PROJ's geodesic direct problem.
@Suite struct ScenarioTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!
    static let home = Coordinate(latitude: 45.52, longitude: -122.681944)

    /// A point `metres` from `origin` towards `azimuth`.
    static func at(_ metres: Double, _ azimuth: Double = 90, from origin: Coordinate = home) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: metres).coordinate
    }

    static func fix(_ coordinate: Coordinate, _ seconds: Double, accuracy: Double = 5) -> LocationFix {
        LocationFix(coordinate: coordinate, timestamp: start.adding(seconds: seconds), horizontalAccuracy: accuracy)
    }

    /// A state with the subscriptions, fed batch by batch; the clock reads each batch's last fix time.
    struct Feed {
        var state = TrackingState()
        var ids = 0
        var events: [TrackingEvent] = []

        @discardableResult
        mutating func subscribe(_ rule: Subscription.Rule, maxLocationAge: Double? = nil, devices: [String]? = nil) -> String {
            ids += 1
            let id = "s\(ids)"
            state.add(Subscription(id: id, deviceIds: devices, maxLocationAge: maxLocationAge, rule: rule, createdAt: start, acceptedFixesBefore: state.acceptedFixes))
            return id
        }

        @discardableResult
        mutating func post(_ fixes: [LocationFix], device: String = "d1", receivedAt: Instant? = nil) -> IngestPlan {
            var counter = state.lastSequence
            let plan = state.plan(deviceId: device, fixes: fixes, receivedAt: receivedAt ?? fixes.map(\.timestamp).max()!) {
                counter += 1
                return "e\(counter)"
            }
            state.apply(plan)
            events += plan.events
            return plan
        }

        var kinds: [TrackingEvent.Kind] { events.map(\.kind) }
    }

    @Test func commuteAcrossACircleEntersOnceAndExitsOnceDespiteJitter() {
        var feed = Feed()
        let office = Self.at(5_000)
        feed.subscribe(.region(RegionRule(shape: .circle(center: office, radius: 1_000))))
        // Drive east from home through the office circle (its west edge 4 km out, its east edge
        // 6 km), 100 m per 10 s, jittering ±30 m at each edge for a few minutes on the way.
        var stops: [Double] = Array(stride(from: 0.0, to: 4_000, by: 100))
        stops += (0..<20).map { 4_000 + ($0.isMultiple(of: 2) ? 30 : -30) }
        stops += Array(stride(from: 4_100.0, to: 6_000, by: 100))
        stops += (0..<20).map { 6_000 + ($0.isMultiple(of: 2) ? 30 : -30) }
        stops += Array(stride(from: 6_100.0, through: 7_000, by: 100))
        for (step, metres) in stops.enumerated() { feed.post([Self.fix(Self.at(metres), Double(step) * 10)]) }
        #expect(feed.kinds == [.enter, .exit])
        // State changes only hysteresis + accuracy (55 m) past the boundary.
        let distances = feed.events.map { Geodesic.wgs84.inverse(from: office, to: $0.location.coordinate).distance }
        #expect(distances[0] <= 945 && distances[1] >= 1_055)
        #expect(feed.events[0].location.coordinate == Self.at(4_100))
        #expect(feed.events[1].location.coordinate == Self.at(6_100))
    }

    @Test func jitterAtTheBoundaryOfAnEnteredRegionDoesNotFlap() {
        var feed = Feed()
        let center = Self.at(1_000)
        feed.subscribe(.region(RegionRule(shape: .circle(center: center, radius: 1_000))))
        feed.post([Self.fix(center, 0)])  // first fix: inside by plain containment → enter
        for step in 1...60 {
            // ±30 m around the boundary on the west side (home is 1 000 m west of the centre).
            feed.post([Self.fix(Self.at(step.isMultiple(of: 2) ? 30 : -30, 270), Double(step * 5))])
        }
        #expect(feed.kinds == [.enter])
    }

    @Test func significantChangeNeedsBothDistanceAndInterval() {
        var feed = Feed()
        feed.subscribe(.significantChange(SignificantChangeRule()))
        feed.post([Self.fix(Self.home, 0)])
        #expect(feed.kinds == [.initial])
        feed.post([Self.fix(Self.at(400), 60)])       // 400 m: too near
        feed.post([Self.fix(Self.at(600), 120)])      // 600 m after 2 min: too soon
        #expect(feed.kinds == [.initial])
        feed.post([Self.fix(Self.at(600), 360)])      // 6 min: both
        #expect(feed.kinds == [.initial, .significantChange])
        let event = feed.events[1]
        #expect(event.previousLocation == Self.fix(Self.home, 0))
        #expect(event.location == Self.fix(Self.at(600), 360))
        #expect(event.occurredAt == Self.start.adding(seconds: 360))
    }

    @Test func outOfOrderBatchIsLateAndTriggersNothing() {
        var feed = Feed()
        feed.subscribe(.significantChange(SignificantChangeRule(distanceFilter: 500, minimumInterval: 0)))
        let plan = feed.post([Self.fix(Self.home, 100), Self.fix(Self.at(2_000), 50), Self.fix(Self.at(1_000), 200), Self.fix(Self.home, 100)])
        #expect(plan.results.map(\.status) == [.accepted, .late, .accepted, .duplicate])
        #expect(feed.kinds == [.initial, .significantChange])
        #expect(feed.events[1].location.coordinate == Self.at(1_000))
        #expect(plan.stored.map(\.index) == [0, 1, 2])
    }

    @Test func staleFixIsSkippedAndDoesNotCountAsFirst() {
        var feed = Feed()
        let id = feed.subscribe(.significantChange(SignificantChangeRule()), maxLocationAge: 15)
        let stale = feed.post([Self.fix(Self.home, 0)], receivedAt: Self.start.adding(seconds: 16))
        #expect(stale.results.map(\.status) == [.accepted])
        #expect(stale.skipped == [.init(index: 0, subscriptionId: id, reason: .stale)])
        #expect(feed.events.isEmpty)
        feed.post([Self.fix(Self.at(10), 20)], receivedAt: Self.start.adding(seconds: 21))
        #expect(feed.kinds == [.initial])
    }

    @Test func rejectsInvalidAndFutureFixes() {
        var feed = Feed()
        let now = Self.start.adding(seconds: 100)
        let plan = feed.post([
            LocationFix(coordinate: Coordinate(latitude: 91, longitude: 0), timestamp: now, horizontalAccuracy: 5),
            LocationFix(coordinate: Self.home, timestamp: now, horizontalAccuracy: -1),
            LocationFix(coordinate: Self.home, timestamp: now.adding(seconds: 5.5), horizontalAccuracy: 5),
            LocationFix(coordinate: Self.home, timestamp: now.adding(seconds: 4.5), horizontalAccuracy: 5),
        ], receivedAt: now)
        #expect(plan.results.map(\.status) == [.rejected(.invalidCoordinate), .rejected(.invalidAccuracy), .rejected(.future), .accepted])
        #expect(plan.stored.map(\.index) == [3])
    }

    @Test func dwellOncePerStay() {
        var feed = Feed()
        feed.subscribe(.region(RegionRule(shape: .circle(center: Self.home, radius: 200), dwell: 300)))
        for minute in 0...10 { feed.post([Self.fix(Self.home, Double(minute * 60))]) }
        #expect(feed.kinds == [.enter, .dwell])
        #expect(feed.events[1].occurredAt == Self.start.adding(seconds: 300))
        feed.post([Self.fix(Self.at(1_000), 700)])
        for minute in 12...20 { feed.post([Self.fix(Self.home, Double(minute * 60))]) }
        #expect(feed.kinds == [.enter, .dwell, .exit, .enter, .dwell])
    }

    @Test func deletingARegionWhileInsideEmitsARegionDeletedExit() throws {
        var feed = Feed()
        let id = feed.subscribe(.region(RegionRule(shape: .circle(center: Self.home, radius: 200))))
        feed.post([Self.fix(Self.home, 0)])
        let deletedAt = Self.start.adding(seconds: 500)
        let plan = try #require(feed.state.planDeletion(of: id, at: deletedAt) { "gone" })
        #expect(plan.events.map(\.kind) == [.exit])
        #expect(plan.events[0].reason == "regionDeleted")
        #expect(plan.events[0].occurredAt == deletedAt)
        #expect(plan.events[0].location == Self.fix(Self.home, 0))
        #expect(plan.events[0].sequence == 2)
        feed.state.apply(plan)
        feed.post([Self.fix(Self.at(5_000), 600)])
        #expect(feed.kinds == [.enter])
        #expect(feed.state.planDeletion(of: id, at: deletedAt) { "again" } == nil)
    }

    @Test func initialTriggerFalseKeepsTheFirstFixQuiet() {
        var feed = Feed()
        feed.subscribe(.region(RegionRule(shape: .circle(center: Self.home, radius: 200), initialTrigger: false)))
        feed.post([Self.fix(Self.home, 0), Self.fix(Self.at(1_000), 60), Self.fix(Self.home, 120)])
        #expect(feed.kinds == [.exit, .enter])
    }

    @Test func aRegionCreatedAfterTheDeviceWasSeenFarAwayTreatsItsEntryAsAnEntry() {
        var feed = Feed()
        feed.post([Self.fix(Self.at(50_000), 0)])
        feed.subscribe(.region(RegionRule(shape: .circle(center: Self.home, radius: 200), initialTrigger: false)))
        feed.post([Self.fix(Self.at(40_000), 60)])  // evaluated: outside (not near the region)
        feed.post([Self.fix(Self.home, 120)])
        #expect(feed.kinds == [.enter])
    }

    @Test func aSkippedFixLeavesTheRegionToClassifyTheNextByPlainContainment() {
        var feed = Feed()
        feed.state.add(Subscription(id: "r", maxLocationAge: nil, maxHorizontalAccuracy: 100,
                                    rule: .region(RegionRule(shape: .circle(center: Self.home, radius: 1_000))), createdAt: Self.start))
        let skipped = feed.post([Self.fix(Self.at(0), 0, accuracy: 500)])
        #expect(skipped.skipped.map(\.reason) == [.accuracy])
        feed.post([Self.fix(Self.at(980), 10, accuracy: 10)])  // 20 m inside: plain containment, not hysteresis
        #expect(feed.kinds == [.enter])
    }

    @Test func subscriptionsForOtherDevicesIgnoreTheFix() {
        var feed = Feed()
        feed.subscribe(.significantChange(SignificantChangeRule()), devices: ["d2"])
        feed.post([Self.fix(Self.home, 0)], device: "d1")
        #expect(feed.events.isEmpty)
        feed.post([Self.fix(Self.home, 0)], device: "d2")
        #expect(feed.kinds == [.initial])
        #expect(feed.events[0].deviceId == "d2")
    }
}
