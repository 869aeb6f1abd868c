import Geodesy
import MapGeometry
import Testing
import Tracking
import Timeline

/// The ingest filters' one rule function, and the state's use of it: what a filtered fix leaves
/// unchanged, and a settings write taken in by the state.
@Suite struct IngestFilterRuleTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!
    static let home = Coordinate(latitude: 45.52, longitude: -122.681944)

    static func fix(_ metres: Double, _ seconds: Double, accuracy: Double = 5) -> LocationFix {
        LocationFix(coordinate: Geodesic.wgs84.direct(from: home, azimuth: 90, distance: metres).coordinate,
                    timestamp: start.adding(seconds: seconds), horizontalAccuracy: accuracy)
    }

    @Test func offKeepsEveryFix() {
        let last = Self.fix(0, 0)
        for candidate in [Self.fix(0, 0.001, accuracy: 10_000), Self.fix(1e6, 0.5), Self.fix(0, -60)] {
            #expect(IngestFilters.off.rule(dropping: candidate, lastKept: last) == nil)
        }
    }

    @Test func aFirstOrLateFixMeetsTheAccuracyLimitOnly() {
        let every = IngestFilters(maxHorizontalAccuracy: 10, minDistance: 1e6, minInterval: 1e6, maxSpeed: 1e-9)
        #expect(every.rule(dropping: Self.fix(0, 0), lastKept: nil) == nil)
        #expect(every.rule(dropping: Self.fix(0, 0, accuracy: 11), lastKept: nil) == .maxHorizontalAccuracy)
        let last = Self.fix(0, 100)
        #expect(every.rule(dropping: Self.fix(5_000, 50), lastKept: last) == nil)
        #expect(every.rule(dropping: Self.fix(5_000, 50, accuracy: 10.5), lastKept: last) == .maxHorizontalAccuracy)
        #expect(every.rule(dropping: Self.fix(5_000, 100.000001), lastKept: last) == .minDistance)
    }

    @Test func aFilteredFixChangesNothingAndTheBatchsKeptFixesCount() {
        var state = TrackingState()
        state.apply(state.plan(deviceId: "d1", fixes: [Self.fix(0, 0)], receivedAt: Self.start.adding(seconds: 10)) { "e" })
        var filters = state
        TrackingWrite.ingestFilters(IngestFilters(minDistance: 100)).apply(to: &filters)
        #expect(filters.ingestFilters == IngestFilters(minDistance: 100) && state.ingestFilters == .off)
        let plan = filters.plan(deviceId: "d1", fixes: [Self.fix(50, 1), Self.fix(101, 2), Self.fix(150, 3), Self.fix(210, 4)],
                                receivedAt: Self.start.adding(seconds: 10)) { "e" }
        #expect(plan.results.map(\.status) == [.filtered(.minDistance), .accepted, .filtered(.minDistance), .accepted])
        #expect(plan.stored.map(\.index) == [1, 3])
        #expect(plan.acceptedFixes == 3 && plan.device.lastFix == Self.fix(210, 4))
    }
}
