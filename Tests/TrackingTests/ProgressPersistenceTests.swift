import Foundation
import MapGeometry
import Storage
import Synchronization
import TestSupport
import Testing
import Timeline
import Tracking

/// Ingest writes a subscription's progress only when a decision changes or the subscription stops
/// evaluating the device; loading brings the rest forward. After any workload, what a restart
/// loads must be exactly what the running tracker holds.
@Suite struct ProgressPersistenceTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    @Test(arguments: [1, 2, 3, 4])
    func aRestartLoadsExactlyTheProgressTheTrackerHolds(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        let store = SQLiteTrackingStore(database: try MeridianDatabase.open(path: ":memory:"))
        let ids = UUIDv7Generator()
        let clock = Mutex(Self.start)
        let tracker = Tracker(writer: try GroupCommitWriter(store: store), now: { clock.withLock { $0 } }, newID: { ids.next().description })
        let centre = Coordinate(latitude: 45.5, longitude: -122.68)
        func near(_ metres: Double) -> Coordinate {
            Coordinate(latitude: centre.latitude + Double.random(in: -metres...metres, using: &generator) / 111_000,
                       longitude: centre.longitude + Double.random(in: -metres...metres, using: &generator) / 78_000)
        }
        var subscriptions: [String] = []
        for index in 0..<24 {
            let shape = RegionShape.circle(center: near(2_000), radius: Double.random(in: 100...800, using: &generator))
            let rule = RegionRule(shape: shape, hysteresis: 20, dwell: index % 3 == 0 ? 120 : nil, detectCrossings: index % 4 == 0)
            let subscription = try await tracker.subscribe { id, createdAt in
                Subscription(id: id, deviceIds: index % 5 == 0 ? ["d1"] : nil, maxLocationAge: index % 2 == 0 ? nil : 15,
                             maxHorizontalAccuracy: index % 3 == 1 ? 30 : nil, rule: .region(rule), createdAt: createdAt)
            }
            subscriptions.append(subscription.id)
        }
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, maxHorizontalAccuracy: 40, rule: .significantChange(SignificantChangeRule(distanceFilter: 300, minimumInterval: 60)), createdAt: createdAt)
        }
        // Visits keep their run under way (sums, hull) in the progress: a restart must read it back bit for bit.
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .visits(StayRule(radius: 400, minimumDuration: 120)), createdAt: createdAt)
        }
        // Status: ingest leaves the row unwritten when only the offline deadline moved with the last
        // fix; a skip rule or a device outside the subscription's group pins the deadline as it stands.
        let status = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .status(StatusRule(offlineAfter: 600, stoppedAfter: 120, stoppedSpeed: 2)), createdAt: createdAt)
        }
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, maxHorizontalAccuracy: 30, rule: .status(StatusRule(offlineAfter: 300)), createdAt: createdAt)
        }
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .status(StatusRule(stoppedAfter: 90, stoppedSpeed: 3)), createdAt: createdAt)
        }
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .status(StatusRule(offlineAfter: 900)), createdAt: createdAt, groups: ["north"])
        }
        // Five devices wandering, some fixes inaccurate, some arriving late, some out of order.
        var positions = (0..<5).map { _ in near(2_500) }
        var seconds = (0..<5).map { _ in 0.0 }
        for round in 0..<120 {
            let device = Int.random(in: 0..<5, using: &generator)
            var batch: [LocationFix] = []
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                seconds[device] += Double.random(in: 5...90, using: &generator)
                let far = Int.random(in: 0..<10, using: &generator) == 0
                positions[device] = far ? near(6_000) : Coordinate(
                    latitude: positions[device].latitude + Double.random(in: -300...300, using: &generator) / 111_000,
                    longitude: positions[device].longitude + Double.random(in: -300...300, using: &generator) / 78_000)
                let late = Int.random(in: 0..<12, using: &generator) == 0
                batch.append(LocationFix(
                    coordinate: positions[device], timestamp: Self.start.adding(seconds: seconds[device] - (late ? 200 : 0)),
                    horizontalAccuracy: [5, 10, 50][Int.random(in: 0...2, using: &generator)]))
            }
            // Fixes arrive up to a minute after they were taken: some are stale for 15 s subscriptions.
            clock.withLock { $0 = Self.start.adding(seconds: (seconds[device] + Double.random(in: 0...60, using: &generator))) }
            _ = try await tracker.ingest(deviceId: "d\(device)", fixes: batch)
            if round == 60 { _ = try await tracker.unsubscribe(subscriptions[3]) }
            if round % 7 == 0 {
                // A device joins or leaves the group "north".
                let member = Int.random(in: 0..<5, using: &generator), joins = Bool.random(using: &generator)
                _ = try await tracker.writeProfile("d\(member)") { _ in
                    DeviceProfile(id: "d\(member)", groups: joins ? ["north"] : [], updatedAt: Self.start)
                }
            }
            if round == 90 {
                var change = SubscriptionChange()
                change.offlineAfter = .some(1_200)
                _ = try await tracker.update(status.id, change)
            }
            if round == 80 {
                var change = SubscriptionChange()
                change.shape = .circle(center: near(1_000), radius: 900)
                change.maxHorizontalAccuracy = .some(20)
                _ = try await tracker.update(subscriptions[5], change)
            }
            if round == 100 || round == 110 {
                // Rules loosened and a region moved: the last fixes were evaluated by the old ones.
                var change = SubscriptionChange()
                change.maxHorizontalAccuracy = .some(nil)
                change.shape = .circle(center: near(2_000), radius: 1_500)
                _ = try await tracker.update(subscriptions[round == 100 ? 4 : 7], change)
            }
            if round % 10 == 9 || round == 100 || round == 110 {
                let running = try await tracker.read { $0.progress }
                let loaded = try store.loadState().progress
                #expect(loaded == running, "round \(round): \(Set(loaded.keys).symmetricDifference(running.keys).count) keys differ, \(running.filter { loaded[$0.key] != $0.value }.count) values")
                let runningStatuses = try await tracker.read { $0.statuses }
                let loadedStatuses = try store.loadState().statuses
                #expect(loadedStatuses == runningStatuses, "round \(round): \(runningStatuses.filter { loadedStatuses[$0.key] != $0.value })")
            }
        }
    }
}
