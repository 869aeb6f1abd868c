import Geodesy
import MapGeometry
import Testing
import Tracking
import Timeline

/// `detect: ["cross"]`: a device that passes through a region between two fixes outside it.
@Suite struct CrossingScenarioTests {
    typealias Feed = ScenarioTests.Feed
    static func at(_ metres: Double, _ azimuth: Double, _ origin: Coordinate) -> Coordinate { ScenarioTests.at(metres, azimuth, from: origin) }
    static func fix(_ coordinate: Coordinate, _ seconds: Double) -> LocationFix { ScenarioTests.fix(coordinate, seconds) }

    /// A fix every 5 minutes at 50 km/h (4 166 m apart), the third leg straight through a 300 m
    /// circle 2 km past the second fix: enter and exit, interpolated, in order, between the fixes.
    @Test func aFixEveryFiveMinutesThroughA300MetreCircle() throws {
        var feed = Feed()
        let centre = Self.at(4_166 * 2 + 2_000, 90, ScenarioTests.home)
        feed.subscribe(.region(RegionRule(shape: .circle(center: centre, radius: 300), detectCrossings: true)))
        var plain = Feed()
        plain.subscribe(.region(RegionRule(shape: .circle(center: centre, radius: 300))))
        let fixes = (0..<5).map { Self.fix(Self.at(Double($0) * 4_166, 90, ScenarioTests.home), Double($0) * 300) }
        for fix in fixes {
            feed.post([fix])
            plain.post([fix])
        }
        #expect(plain.events.isEmpty, "without detect: cross, nothing between fixes")
        #expect(feed.kinds == [.enter, .exit])
        let (enter, exit) = (feed.events[0], feed.events[1])
        #expect(enter.interpolated && exit.interpolated)
        #expect(enter.previousLocation == fixes[2] && exit.previousLocation == enter.location)
        // The circle's near edge is 1 700 m past the third fix (300 s per 4 166 m): 122.4 s later.
        let entrySeconds = enter.occurredAt.seconds(since: fixes[2].timestamp), exitSeconds = exit.occurredAt.seconds(since: fixes[2].timestamp)
        #expect(abs(entrySeconds - 1_700 / 4_166 * 300) < 0.1 && abs(exitSeconds - 2_300 / 4_166 * 300) < 0.1, "\(entrySeconds) \(exitSeconds)")
        #expect(enter.occurredAt < exit.occurredAt && exit.occurredAt < fixes[3].timestamp)
        #expect(abs(Geodesic.wgs84.inverse(from: centre, to: enter.location.coordinate).distance - 300) < 0.2)
    }

    /// Passing beside the circle within the hysteresis is no crossing; one fix inside is an
    /// ordinary enter, and the exit that follows is an ordinary exit.
    @Test func besideItOrThroughItWithAFixInsideIsNotInterpolated() {
        var feed = Feed()
        let centre = Self.at(2_000, 0, ScenarioTests.home)
        feed.subscribe(.region(RegionRule(shape: .circle(center: centre, radius: 300), detectCrossings: true)))
        // 280 m north of the centre: a chord only 20 m deep, less than the 50 m hysteresis (and 5 m accuracy).
        let north = Self.at(280, 0, centre)
        feed.post([Self.fix(Self.at(-3_000, 90, north), 0)])
        feed.post([Self.fix(Self.at(3_000, 90, north), 300)])
        #expect(feed.events.isEmpty)
        var through = Feed()
        through.subscribe(.region(RegionRule(shape: .circle(center: centre, radius: 300), detectCrossings: true)))
        through.post([Self.fix(Self.at(-3_000, 90, centre), 0)])
        through.post([Self.fix(centre, 300)])
        through.post([Self.fix(Self.at(3_000, 90, centre), 600)])
        #expect(through.kinds == [.enter, .exit] && through.events.allSatisfy { !$0.interpolated })
    }
}
