import Foundation
import MapGeometry
import Storage
import Synchronization
import Testing
import Timeline
import Tracking

/// Status subscriptions in event time, over the real tracker and SQLite store, with the server
/// clock in the test's hand: each trace gives the fixes and the clock's moves, and the events are
/// checked against the rules written out by hand (deadline = fix time + delay).
@Suite struct StatusTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    /// The server clock, moved by the test.
    final class Clock: Sendable {
        let now = Mutex(StatusTests.start)
        func set(_ seconds: Double) { now.withLock { $0 = StatusTests.start.adding(seconds: seconds) } }
    }

    /// A tracker over `database` (a fresh in-memory one by default) with one status subscription
    /// for every device, no age limit (the traces are buffered uploads).
    static func tracker(
        _ rule: StatusRule, database: MeridianDatabase? = nil, clock: Clock = Clock(), subscribe: Bool = true
    ) async throws -> (Tracker, Clock, MeridianDatabase, String?) {
        let database = try database ?? MeridianDatabase.open(path: ":memory:")
        let ids = UUIDv7Generator()
        let tracker = Tracker(
            writer: try GroupCommitWriter(store: SQLiteTrackingStore(database: database)), now: { clock.now.withLock { $0 } },
            newID: { ids.next().description })
        guard subscribe else { return (tracker, clock, database, nil) }
        let subscription = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .status(rule), createdAt: createdAt)
        }
        return (tracker, clock, database, subscription.id)
    }

    /// A fix `seconds` after `start`, `north` metres north of a point (1° of latitude ≈ 111 132 m
    /// there; the traces only need "far more" or "far less" than the threshold).
    static func fix(_ seconds: Double, north: Double = 0, speed: Double? = nil) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: 45.5 + north / 111_132, longitude: -122.68), timestamp: start.adding(seconds: seconds),
            horizontalAccuracy: 5, speed: speed)
    }

    /// (kind, seconds after start of occurredAt) of every event logged.
    static func log(_ tracker: Tracker) async throws -> [(TrackingEvent.Kind, Double)] {
        try await tracker.log.events(subscriptionId: nil, after: 0, limit: 1000).map { ($0.kind, $0.occurredAt.seconds(since: start)) }
    }

    @Test func offlineFiresAtTheLatestFixPlusOfflineAfterAndOnlineAtTheNextFix() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 300))
        clock.set(10)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0), Self.fix(10)])
        clock.set(200)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(200)])  // moves the deadline to 500
        clock.set(499)
        #expect(try await tracker.fireDeadlines().fired == 0)
        #expect(try await tracker.fireDeadlines().next == Self.start.adding(seconds: 500))
        clock.set(530)  // the timer runs late: occurredAt is still the deadline
        #expect(try await tracker.fireDeadlines().fired == 1)
        #expect(try await tracker.fireDeadlines().fired == 0, "once")
        clock.set(700)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(690)])
        let log = try await Self.log(tracker)
        #expect(log.map(\.0) == [.offline, .online])
        #expect(log.map(\.1) == [500, 690])
        let offline = try #require(try await tracker.log.events(subscriptionId: nil, after: 0, limit: 1).first)
        #expect(offline.location == Self.fix(200), "where the device was last seen")
        #expect(offline.recordedAt == Self.start.adding(seconds: 530))
    }

    @Test func aGapInsideOneUploadIsOfflineThenOnlineInEventTime() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 60))
        clock.set(1000)
        let result = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0), Self.fix(50), Self.fix(400), Self.fix(460)])
        #expect(result.events.map(\.kind) == [.offline, .online])
        #expect(result.events.map { $0.occurredAt.seconds(since: Self.start) } == [110, 400])
        #expect(result.events.first?.location == Self.fix(50))
        // The last fix (460) leaves a deadline at 520, already past on the clock: fired at once.
        #expect(try await tracker.fireDeadlines().fired == 1)
        #expect(try await Self.log(tracker).last.map(\.1) == 520)
    }

    @Test func aFixAtTheDeadlineMovesItAndABackDatedFixChangesNothing() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 60, stoppedAfter: 30))
        clock.set(500)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0, speed: 10), Self.fix(60, speed: 10)])
        let late = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(30, speed: 0)])
        #expect(late.results.map(\.status) == [.late])
        #expect(late.events.isEmpty)
        let status = try await tracker.read { $0.statuses.values.first }
        #expect(status == DeviceStatus(offlineAt: Self.start.adding(seconds: 120), followsLastFix: true), "moving, offline due 60 s after the newest fix")
    }

    @Test func stoppedCountsFromTheFirstSlowFixUnlessAFasterOneCameBetween() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(stoppedAfter: 120, stoppedSpeed: 2))
        clock.set(3000)
        // Fast, slow from 100, fast again at 200 (cancels), slow from 300 on: stopped at 420.
        let speeds: [(Double, Double)] = [(0, 8), (100, 1), (150, 0.5), (200, 3), (300, 1.9), (350, 0), (400, 0)]
        let first = try await tracker.ingest(deviceId: "van", fixes: speeds.map { Self.fix($0.0, speed: $0.1) })
        #expect(first.events.isEmpty, "the deadline at 420 is after the last fix")
        #expect(try await tracker.fireDeadlines().fired == 1)
        // Moving again at 900 (the speed 2 is at the threshold: at or above is moving).
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(800, speed: 0), Self.fix(900, speed: 2)])
        let log = try await Self.log(tracker)
        #expect(log.map(\.0) == [.stopped, .moving])
        #expect(log.map(\.1) == [420, 900])
        let stopped = try #require(try await tracker.log.events(subscriptionId: nil, after: 0, limit: 1).first)
        #expect(stopped.location == Self.fix(400, speed: 0), "the device's last fix when the deadline passed")
    }

    @Test func withoutASpeedTheSpeedComesFromThePreviousFixsPosition() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(stoppedAfter: 60, stoppedSpeed: 1))
        clock.set(3000)
        // 0 → 10 s: 200 m (20 m/s, moving); then 5 m in 10 s (0.5 m/s) from 20 on: stopped at 80;
        // then 500 m in 10 s at 200: moving.
        let trace = [Self.fix(0), Self.fix(10, north: 200), Self.fix(20, north: 205), Self.fix(30, north: 210),
                     Self.fix(190, north: 212), Self.fix(200, north: 712)]
        let result = try await tracker.ingest(deviceId: "car", fixes: trace)
        #expect(result.events.map(\.kind) == [.stopped, .moving])
        #expect(result.events.map { $0.occurredAt.seconds(since: Self.start) } == [80, 200])
        #expect(result.events.first?.location == Self.fix(30, north: 210), "the last fix before the deadline")
    }

    @Test func theFirstFixStartsTheStopClockWhenItIsSlow() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(stoppedAfter: 60))
        clock.set(100)
        _ = try await tracker.ingest(deviceId: "parked", fixes: [Self.fix(0)])  // no speed, no earlier fix: counts as below
        #expect(try await tracker.fireDeadlines().fired == 1)
        #expect(try await Self.log(tracker).map(\.1) == [60])
    }

    @Test func deadlinesSurviveARestartAndFireOnceWithTheirOwnTime() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        do {
            let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 60), database: try MeridianDatabase.open(path: path))
            clock.set(5)
            _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        }
        // "Restarted" an hour later: the deadline is a row, read back with the state.
        let clock = Clock()
        clock.set(3600)
        let (tracker, _, _, _) = try await Self.tracker(StatusRule(), database: try MeridianDatabase.open(path: path), clock: clock, subscribe: false)
        #expect(try await tracker.fireDeadlines().fired == 1)
        #expect(try await tracker.fireDeadlines().fired == 0)
        let log = try await tracker.log.events(subscriptionId: nil, after: 0, limit: 10)
        #expect(log.map(\.kind) == [.offline])
        #expect(log.map(\.occurredAt) == [Self.start.adding(seconds: 60)])
        #expect(log.map(\.recordedAt) == [Self.start.adding(seconds: 3600)])
    }

    @Test func editingTheDelayMovesThePendingDeadlineAndDeletingDropsIt() async throws {
        let (tracker, clock, _, id) = try await Self.tracker(StatusRule(offlineAfter: 60))
        let subscription = try #require(id)
        clock.set(10)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        var change = SubscriptionChange()
        change.offlineAfter = .some(600)
        _ = try await tracker.update(subscription, change)
        #expect(try await tracker.fireDeadlines().next == Self.start.adding(seconds: 600), "still counted from the fix at 0")
        _ = try await tracker.unsubscribe(subscription)
        clock.set(10_000)
        #expect(try await tracker.fireDeadlines().fired == 0)
        #expect(try await tracker.read { $0.statuses.isEmpty })
    }

    @Test func erasingTheDeviceDropsItsDeadlines() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 60))
        clock.set(10)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        #expect(try await tracker.erase("van", check: { _ in }))
        clock.set(10_000)
        #expect(try await tracker.fireDeadlines().fired == 0)
        #expect(try await tracker.read { $0.statuses.isEmpty })
    }

    @Test func manyDeadlinesFireInTheOrderOfTheirTimes() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(offlineAfter: 30))
        clock.set(2000)
        // Device i's last fix at 1000 - i: deadlines in the reverse order of ingest.
        for i in 0..<1200 { _ = try await tracker.ingest(deviceId: "d\(i)", fixes: [Self.fix(Double(1000 - i))]) }
        let firing = try await tracker.fireDeadlines()
        #expect(firing.fired == 1200)
        let log = try await tracker.log.events(subscriptionId: nil, after: 0, limit: 2000)
        #expect(log.map(\.sequence) == Array(1...1200))
        #expect(log.map(\.deviceId) == (0..<1200).reversed().map { "d\($0)" })
        #expect(log.map(\.occurredAt) == log.map(\.occurredAt).sorted())
    }

    /// Status subscriptions are found by whom they cover (listed devices, groups), not by a scan:
    /// each device is evaluated by its own; one that left the group is not, and its pending
    /// deadline is dropped without an event when it falls due.
    @Test func eachDeviceIsEvaluatedByTheSubscriptionsCoveringItOnly() async throws {
        let (tracker, clock, _, _) = try await Self.tracker(StatusRule(), subscribe: false)
        var ids: [String] = []
        for (devices, groups) in [(["van"], nil), (nil, ["north"])] as [([String]?, [String]?)] {
            ids.append(try await tracker.subscribe { id, createdAt in
                Subscription(id: id, deviceIds: devices, maxLocationAge: nil, rule: .status(StatusRule(offlineAfter: 60)), createdAt: createdAt, groups: groups)
            }.id)
        }
        _ = try await tracker.writeProfile("bus") { _ in DeviceProfile(id: "bus", groups: ["north"], updatedAt: Self.start) }
        clock.set(10)
        for device in ["van", "bus", "car"] { _ = try await tracker.ingest(deviceId: device, fixes: [Self.fix(0)]) }
        let keys = try await tracker.read { Set($0.statuses.keys) }
        #expect(keys == [ProgressKey(subscriptionId: ids[0], deviceId: "van"), ProgressKey(subscriptionId: ids[1], deviceId: "bus")])
        _ = try await tracker.writeProfile("bus") { _ in DeviceProfile(id: "bus", groups: [], updatedAt: Self.start) }
        clock.set(40)
        #expect(try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(30)]).results.map(\.status) == [.accepted])
        let busKey = ProgressKey(subscriptionId: ids[1], deviceId: "bus")
        let bus = try await tracker.read { $0.statuses[busKey] }
        #expect(bus == DeviceStatus(offlineAt: Self.start.adding(seconds: 60)), "not moved by a fix it did not evaluate")
        clock.set(1000)
        #expect(try await tracker.fireDeadlines().fired == 1)
        #expect(try await Self.log(tracker).map(\.0) == [.offline])
        #expect(try await tracker.log.events(subscriptionId: nil, after: 0, limit: 10).map(\.deviceId) == ["van"])
    }
}
