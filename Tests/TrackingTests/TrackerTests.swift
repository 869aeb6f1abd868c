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
        struct Faults {
            var commits = 0, plansPerCommit: [Int] = [], failCommits = false, failLoads = false
            /// When set, the next ingest commit waits for it (the committer is busy meanwhile).
            var holdNextCommit: DispatchSemaphore?
        }
        let faults = Mutex(Faults())
        struct InjectedFailure: Error {}

        init(_ base: SQLiteTrackingStore) { self.base = base }

        func loadState() throws -> TrackingState {
            if faults.withLock({ $0.failLoads }) { throw InjectedFailure() }
            return try base.loadState()
        }

        func commit(_ write: TrackingWrite) throws -> [Set<Int>] {
            guard case .ingest(let plans) = write else { return try base.commit(write) }
            let (fail, hold) = faults.withLock { faults in
                faults.commits += 1
                faults.plansPerCommit.append(plans.count)
                defer { faults.holdNextCommit = nil }
                return (faults.failCommits, faults.holdNextCommit)
            }
            hold?.wait()
            if fail { throw InjectedFailure() }
            return try base.commit(write)
        }

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
        let tracker = Tracker(writer: try GroupCommitWriter(store: store), now: { start.adding(seconds: 3600) }, newID: { ids.next().description })
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: createdAt)
        }
        return (tracker, store)
    }

    static func fix(_ seconds: Double, latitude: Double = 45.5) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: latitude, longitude: -122.68), timestamp: start.adding(seconds: seconds), horizontalAccuracy: 5)
    }

    @Test func batchesPlannedWhileACommitRunsAreCommittedTogetherInArrivalOrder() async throws {
        let (tracker, store) = try await Self.tracker()
        // Hold the first commit, so the batches below are planned and wait for the committer.
        let release = DispatchSemaphore(value: 0)
        store.faults.withLock { $0.holdNextCommit = release }
        let first = Task { try await tracker.ingest(deviceId: "d0", fixes: [Self.fix(0)]) }
        while store.faults.withLock({ $0.commits }) == 0 { try await Task.sleep(for: .milliseconds(10)) }  // it is being committed
        let devices = (1..<10).map { "d\($0)" }
        var ingests: [Task<Tracker.IngestResult, any Error>] = []
        for device in devices {
            ingests.append(Task { try await tracker.ingest(deviceId: device, fixes: [Self.fix(0)]) })
            try await Task.sleep(for: .milliseconds(20))  // in this order
        }
        try await Task.sleep(for: .milliseconds(300))
        release.signal()
        var sequences = try await first.value.events.map(\.sequence)
        for ingest in ingests { sequences += try await ingest.value.events.map(\.sequence) }
        #expect(store.faults.withLock { $0.plansPerCommit } == [1, 9], "one transaction for the nine batches planned meanwhile")
        #expect(sequences == Array(1...10), "one initial event each, numbered in arrival order without gaps")
        // The committed log is what the callers were told.
        let logged = try await store.events(subscriptionId: nil, after: 0, limit: 100)
        #expect(logged.map(\.sequence) == Array(1...10))
        #expect(logged.map(\.deviceId) == ["d0"] + devices)
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

    /// A batch planned on top of one whose commit then fails was planned on a state that never
    /// was: it fails too (it was never stored), and the next batch starts from the store's state.
    @Test func aBatchPlannedOnAFailedCommitFailsWithIt() async throws {
        let (tracker, store) = try await Self.tracker()
        let release = DispatchSemaphore(value: 0)
        store.faults.withLock { $0.holdNextCommit = release; $0.failCommits = true }
        let failing = Task { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)]) }
        while store.faults.withLock({ $0.commits }) == 0 { try await Task.sleep(for: .milliseconds(10)) }  // it is being committed
        let onTop = Task { try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)]) }
        try await Task.sleep(for: .seconds(1))  // planned (on the writer, which is free) well before the release
        store.faults.withLock { $0.failCommits = false }
        release.signal()
        await #expect(throws: FaultyStore.InjectedFailure.self) { try await failing.value }
        await #expect(throws: FaultyStore.InjectedFailure.self) { try await onTop.value }
        let retried = try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)])
        #expect(retried.results.map(\.status) == [.accepted] && retried.events.map(\.sequence) == [1])
        #expect(try await store.events(subscriptionId: nil, after: 0, limit: 10).map(\.deviceId) == ["bus"])
    }

    @Test func whenTheReloadAlsoFailsTrackingRefusesUntilARestart() async throws {
        let (tracker, store) = try await Self.tracker()
        store.faults.withLock { $0.failCommits = true; $0.failLoads = true }
        await #expect(throws: FaultyStore.InjectedFailure.self) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)]) }
        store.faults.withLock { $0.failCommits = false; $0.failLoads = false }
        await #expect(throws: TrackerError.stateLost) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(1)]) }
        await #expect(throws: TrackerError.stateLost) { try await tracker.read { $0.lastSequence } }
        // A restart (a new tracker on the same store) reads the committed state again.
        let restarted = Tracker(writer: try GroupCommitWriter(store: store), now: { Self.start.adding(seconds: 3600) }, newID: { UUID().uuidString })
        #expect(try await restarted.read { $0.lastSequence } == 0)
    }
}
