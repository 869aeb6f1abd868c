import Dispatch
import Foundation
import MapGeometry
import Storage
import Synchronization
import Testing
import Timeline
import Tracking

/// The tracker over the real SQLite store: group commit, and what a failed commit leaves behind.
@Suite struct TrackerTests {
    /// The SQLite tracking store with a count of its ingest commits and a switch that makes the
    /// next ones fail (as a full disk or an I/O error would), and optionally the reload after them.
    final class FaultyStore: TrackingStore {
        let base: SQLiteTrackingStore
        struct Faults { var commits = 0; var plansPerCommit: [Int] = []; var failCommits = false; var failLoads = false }
        let faults = Mutex(Faults())
        struct InjectedFailure: Error {}

        init(_ base: SQLiteTrackingStore) { self.base = base }

        func loadState() throws -> TrackingState {
            if faults.withLock({ $0.failLoads }) { throw InjectedFailure() }
            return try base.loadState()
        }

        func commit(_ plans: [IngestPlan]) throws -> [Set<Int>] {
            let fail = faults.withLock { faults in
                faults.commits += 1
                faults.plansPerCommit.append(plans.count)
                return faults.failCommits
            }
            if fail { throw InjectedFailure() }
            return try base.commit(plans)
        }

        func insert(_ subscription: Subscription) throws { try base.insert(subscription) }
        func commit(_ plan: DeletionPlan) throws { try base.commit(plan) }
        func commit(_ plan: ChangePlan) throws { try base.commit(plan) }
        func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
            try await base.events(subscriptionId: subscriptionId, after: sequence, limit: limit)
        }
        func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix] {
            try await base.fixes(deviceId: deviceId, from: from, to: to, limit: limit)
        }
    }

    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    /// A tracker on a fresh in-memory database whose clock stands at `start` + 1 h, with one
    /// significant-change subscription for every device (so each device's first fix is an event).
    static func tracker() async throws -> (Tracker, FaultyStore) {
        let store = FaultyStore(SQLiteTrackingStore(database: try MeridianDatabase.open(path: ":memory:")))
        let ids = UUIDv7Generator()
        let tracker = try Tracker(store: store, now: { start.adding(seconds: 3600) }, newID: { ids.next().description })
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: createdAt)
        }
        return (tracker, store)
    }

    static func fix(_ seconds: Double, latitude: Double = 45.5) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: latitude, longitude: -122.68), timestamp: start.adding(seconds: seconds), horizontalAccuracy: 5)
    }

    @Test func queuedIngestsAreCommittedTogetherInArrivalOrder() async throws {
        let (tracker, store) = try await Self.tracker()
        // Hold the writer with a read, so the ingests below queue up behind it.
        let release = DispatchSemaphore(value: 0)
        let held = Task { try await tracker.read { _ in release.wait() } }
        try await Task.sleep(for: .milliseconds(100))
        let devices = (0..<10).map { "d\($0)" }
        let ingests = devices.map { device in Task { try await tracker.ingest(deviceId: device, fixes: [Self.fix(0)]) } }
        try await Task.sleep(for: .milliseconds(500))
        release.signal()
        try await held.value
        var sequences: [Int64] = []
        for ingest in ingests { sequences += try await ingest.value.events.map(\.sequence) }
        #expect(store.faults.withLock { $0.plansPerCommit } == [10], "one transaction for the ten queued batches")
        #expect(sequences.sorted() == Array(1...10), "one initial event each, numbered without gaps")
        // The committed log is what the callers were told.
        let logged = try await store.events(subscriptionId: nil, after: 0, limit: 100)
        #expect(logged.map(\.sequence) == Array(1...10))
        #expect(Set(logged.map(\.deviceId)) == Set(devices))
    }

    @Test func aFailedCommitReloadsTheStateAndTheNextIngestContinuesWithoutAGap() async throws {
        let (tracker, store) = try await Self.tracker()
        let first = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        #expect(first.events.map(\.sequence) == [1])

        store.faults.withLock { $0.failCommits = true }
        await #expect(throws: FaultyStore.InjectedFailure.self) {
            try await tracker.ingest(deviceId: "van", fixes: [Self.fix(600, latitude: 45.6)])  // 11 km, 10 min: an event
        }
        // The state was applied before the commit; the failure put it back to what the store holds.
        let state = try await tracker.read { $0 }
        #expect(state.lastSequence == 1)
        #expect(state.devices["van"]?.lastFix == Self.fix(0))

        store.faults.withLock { $0.failCommits = false }
        let retried = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(600, latitude: 45.6)])
        #expect(retried.results.map(\.status) == [.accepted], "the refused fix was never stored, so it is not a duplicate")
        #expect(retried.events.map(\.sequence) == [2], "the sequence the failed commit would have used is issued again")
        #expect(try await store.events(subscriptionId: nil, after: 0, limit: 10).map(\.sequence) == [1, 2])
    }

    @Test func whenTheReloadAlsoFailsTrackingRefusesUntilARestart() async throws {
        let (tracker, store) = try await Self.tracker()
        store.faults.withLock { $0.failCommits = true; $0.failLoads = true }
        await #expect(throws: FaultyStore.InjectedFailure.self) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)]) }
        store.faults.withLock { $0.failCommits = false; $0.failLoads = false }
        await #expect(throws: TrackerError.stateLost) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(1)]) }
        await #expect(throws: TrackerError.stateLost) { try await tracker.read { $0.lastSequence } }
        // A restart (a new tracker on the same store) reads the committed state again.
        let restarted = try Tracker(store: store, now: { Self.start.adding(seconds: 3600) }, newID: { UUID().uuidString })
        #expect(try await restarted.read { $0.lastSequence } == 0)
    }
}
