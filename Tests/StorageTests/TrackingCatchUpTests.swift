import Foundation
import Geodesy
import MapGeometry
import PostgresNIO
@testable import Storage
import Synchronization
import Testing
import TestSupport
import Timeline
import Tracking

/// Two instances on one PostgreSQL catch up with each other's ingest from the rows it wrote (not
/// by reloading the tenant): random fixes of several devices, each batch sent to either instance,
/// give the events one SQLite instance gives for the same batches, and each instance's state is
/// then the state a fresh load gives, unwritten progress included.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs MERIDIAN_POSTGRES_URL: make test starts a throw-away PostgreSQL"), .serialized)
struct TrackingCatchUpTests {
    static let start = Instant(rfc3339: "2026-11-29T08:00:00Z")!
    static let center = Coordinate(latitude: 45.52, longitude: -122.68)

    /// Significant changes of 300 m (most fixes change nothing written), a region with crossings
    /// and dwell, one that skips fixes older than a minute at arrival, and offline and stopped timers.
    static let rules: [Subscription.Rule] = [
        .significantChange(SignificantChangeRule(distanceFilter: 300, minimumInterval: 60)),
        .region(RegionRule(shape: .circle(center: center, radius: 400), dwell: 120, detectCrossings: true)),
        .region(RegionRule(shape: .circle(center: Coordinate(latitude: 45.525, longitude: -122.675), radius: 250), hysteresis: 20)),
        .status(StatusRule(offlineAfter: 600, stoppedAfter: 300)),
    ]

    /// Batches of a random walk per device: (device, fixes), with late and repeated fixes among them.
    static func batches(seed: UInt64, count: Int) -> [(String, [LocationFix])] {
        var random = SeededGenerator(seed: seed)
        let devices = (0..<5).map { "d\($0)" }
        var position = Dictionary(uniqueKeysWithValues: devices.map { ($0, center) })
        var time = Dictionary(uniqueKeysWithValues: devices.map { ($0, 0.0) })
        var sent: [String: [LocationFix]] = [:]
        return (0..<count).map { _ in
            let device = devices[Int(random.next() % UInt64(devices.count))]
            let fixes = (0..<(1 + Int(random.next() % 4))).map { _ -> LocationFix in
                let roll = random.next() % 20
                if roll == 0, let earlier = sent[device]?.randomElement(using: &random) { return earlier }  // repeated
                if roll == 1, let last = sent[device]?.last {  // late: between two earlier instants
                    return LocationFix(coordinate: last.coordinate, timestamp: last.timestamp.adding(seconds: -7), horizontalAccuracy: 10)
                }
                time[device, default: 0] += Double(10 + random.next() % 120)
                let step = Double(random.next() % 400), bearing = Double(random.next() % 360)
                var next = Geodesic.wgs84.direct(from: position[device]!, azimuth: bearing, distance: step).coordinate
                if Geodesic.wgs84.inverse(from: next, to: center).distance > 1_500 { next = center }
                position[device] = next
                return LocationFix(coordinate: next, timestamp: start.adding(seconds: time[device]!), horizontalAccuracy: Double(5 + random.next() % 30))
            }
            sent[device, default: []] += fixes
            return (device, fixes)
        }
    }

    /// What an event says, without its id.
    struct Outcome: Hashable {
        var sequence: Int64, subscription: String, device: String, kind: String, reason: String?, at: Instant
        init(_ event: TrackingEvent) {
            (sequence, subscription, device, kind, reason, at) = (event.sequence, event.subscriptionId, event.deviceId, event.kind.rawValue, event.reason, event.occurredAt)
        }
    }

    /// What a state holds that a load rebuilds.
    struct Snapshot: Equatable {
        var devices: [String: DeviceState], progress: [ProgressKey: SubscriptionProgress], statuses: [ProgressKey: DeviceStatus]
        var lastSequence: Int64, acceptedFixes: Int64
        init(_ state: TrackingState) {
            (devices, progress, statuses, lastSequence, acceptedFixes) = (state.devices, state.progress, state.statuses, state.lastSequence, state.acceptedFixes)
        }
    }

    /// The instants the trackers take as now (each batch arrives 20 s after its newest fix).
    final class Clock: Sendable {
        let now = Mutex(TrackingCatchUpTests.start)
    }

    /// A tracker on `engine` whose clock is `clock` and whose subscription ids are the rules' indexes.
    static func tracker(_ engine: any StorageEngine, clock: Clock) async throws -> Tracker {
        let ids = UUIDv7Generator()
        return Tracker(writer: try await engine.tracking(tenant: .default).openWriter { _, _ in }, now: { clock.now.withLock { $0 } },
                       newID: { ids.next().description })
    }

    static func subscribe(_ tracker: Tracker) async throws {
        for (index, rule) in rules.enumerated() {
            let maxLocationAge: Double? = index == 2 ? 60 : nil
            _ = try await tracker.subscribe { _, createdAt in
                Subscription(id: "s\(index)", maxLocationAge: maxLocationAge, rule: rule, createdAt: createdAt)
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func instancesTakingTurnsCatchUpToWhatALoadGivesAndTheEventsOfOne(seed: UInt64) async throws {
        let batches = Self.batches(seed: seed, count: 120)
        let clock = Clock()
        // One SQLite instance: the reference.
        let reference = try await Self.tracker(try await DatabasePlace.open(try await TestEngine.sqlite.freshPlace()), clock: clock)
        try await Self.subscribe(reference)
        var expected: [Outcome] = []
        for (device, fixes) in batches {
            clock.now.withLock { $0 = fixes.map(\.timestamp).max()!.adding(seconds: 20) }
            expected += try await reference.ingest(deviceId: device, fixes: fixes).events.map(Outcome.init)
        }
        #expect(expected.count > 20, "the walk makes events")

        let place = try await TestEngine.postgres.freshPlace()
        let engines = [try await DatabasePlace.open(place), try await DatabasePlace.open(place)]
        clock.now.withLock { $0 = Self.start }
        let instances = [try await Self.tracker(engines[0], clock: clock), try await Self.tracker(engines[1], clock: clock)]
        try await Self.subscribe(instances[0])
        var random = SeededGenerator(seed: seed &+ 100)
        var outcomes: [Outcome] = []
        for (device, fixes) in batches {
            clock.now.withLock { $0 = fixes.map(\.timestamp).max()!.adding(seconds: 20) }
            outcomes += try await instances[Int(random.next() % 2)].ingest(deviceId: device, fixes: fixes).events.map(Outcome.init)
        }
        #expect(outcomes == expected, "two instances taking turns give one instance's events")

        let loaded = Snapshot(try await Self.tracker(try await DatabasePlace.open(place), clock: clock).read { $0 })
        #expect(loaded == Snapshot(try await reference.read { $0 }), "PostgreSQL's rows load to SQLite's instance's state")
        for (index, instance) in instances.enumerated() {
            let state = Snapshot(try await instance.read { $0 })
            #expect(state.devices == loaded.devices, "instance \(index): devices")
            #expect(state.progress == loaded.progress, "instance \(index): progress")
            #expect(state.statuses == loaded.statuses, "instance \(index): statuses")
            #expect(state == loaded, "instance \(index) caught up to what a load gives")
        }
        // Each device row names the accepted fix before its last, as a search of its fixes finds it.
        let engine = try #require(engines[0] as? PostgresEngine)
        var named = 0
        for try await (id, previous, searched) in try await engine.database.client.query("""
            SELECT id, previous_fix_at, (SELECT max(timestamp) FROM location_fix f
                                         WHERE f.tenant = d.tenant AND f.device_id = d.id AND f.timestamp < d.last_fix_at AND NOT late)
            FROM device d WHERE last_fix_at IS NOT NULL
            """, logger: engine.database.logger).decode((String, Int64?, Int64?).self) {
            #expect(previous == searched, "device \(id)")
            named += previous == nil ? 0 : 1
        }
        #expect(named > 0)
    }

    @Test func concurrentDevicesOnBothInstancesCatchUpToWhatALoadGives() async throws {
        // Each device's batches in order, the devices at once, each batch to either instance: the
        // groups hold several devices' batches, and an instance catches up before and under the lock.
        let batches = Self.batches(seed: 7, count: 160)
        let byDevice = Dictionary(grouping: batches.indices, by: { batches[$0].0 })
        let clock = Clock()
        clock.now.withLock { $0 = batches.flatMap(\.1).map(\.timestamp).max()!.adding(seconds: 20) }
        let reference = try await Self.tracker(try await DatabasePlace.open(try await TestEngine.sqlite.freshPlace()), clock: clock)
        try await Self.subscribe(reference)
        var expected: [String: [Outcome]] = [:]
        for (device, fixes) in batches {
            expected[device, default: []] += try await reference.ingest(deviceId: device, fixes: fixes).events.map(Outcome.init)
        }

        let place = try await TestEngine.postgres.freshPlace()
        let instances = [try await Self.tracker(try await DatabasePlace.open(place), clock: clock),
                         try await Self.tracker(try await DatabasePlace.open(place), clock: clock)]
        try await Self.subscribe(instances[0])
        let outcomes = try await withThrowingTaskGroup(of: (String, [Outcome]).self) { group in
            for (device, indexes) in byDevice {
                group.addTask {
                    var outcomes: [Outcome] = []
                    for (turn, index) in indexes.enumerated() {
                        outcomes += try await instances[turn % 2].ingest(deviceId: device, fixes: batches[index].1).events.map(Outcome.init)
                    }
                    return (device, outcomes)
                }
            }
            return try await group.reduce(into: [String: [Outcome]]()) { $0[$1.0] = $1.1 }
        }
        func withoutSequence(_ outcomes: [String: [Outcome]]) -> [String: [Outcome]] {
            outcomes.mapValues { $0.map { var outcome = $0; outcome.sequence = 0; return outcome } }
        }
        #expect(withoutSequence(outcomes) == withoutSequence(expected), "each device's events are one instance's")
        let sequences = outcomes.values.flatMap { $0.map(\.sequence) }.sorted()
        #expect(sequences == Array(1...Int64(sequences.count)), "numbered once each, no gap")

        let loaded = Snapshot(try await Self.tracker(try await DatabasePlace.open(place), clock: clock).read { $0 })
        for (index, instance) in instances.enumerated() {
            #expect(Snapshot(try await instance.read { $0 }) == loaded, "instance \(index) caught up to what a load gives")
        }
        // Ordinals and sequences follow the interleaving; where each subscription stands does not.
        let fromReference = Snapshot(try await reference.read { $0 })
        #expect(fromReference.progress == loaded.progress && fromReference.statuses == loaded.statuses, "the rows are one instance's")
    }
}
