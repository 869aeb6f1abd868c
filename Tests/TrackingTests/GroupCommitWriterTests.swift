import Dispatch
import MapGeometry
import Synchronization
import Testing
import Timeline
@testable import Tracking

/// The group-commit writer on an in-memory store: batches that wait are committed together in
/// arrival order, and a failed commit fails its callers and puts the state back to the store's.
@Suite struct GroupCommitWriterTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    /// A tracker over a group-commit writer on a fresh in-memory store, with one significant-change
    /// subscription for every device (so each device's first fix is an event).
    static func tracker() async throws -> (Tracker, MemoryTracking) {
        let memory = MemoryTracking()
        let ids = UUIDv7Generator()
        let tracker = Tracker(writer: try GroupCommitWriter(store: LocalMemoryStore(memory: memory)), now: { start.adding(seconds: 3600) },
                              newID: { ids.next().description })
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: createdAt)
        }
        return (tracker, memory)
    }

    static func fix(_ seconds: Double) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: 45.5, longitude: -122.68), timestamp: start.adding(seconds: seconds), horizontalAccuracy: 5)
    }

    /// Holds the next ingest commit, starts `first` and waits until it is being committed.
    static func holdingTheCommit(_ memory: MemoryTracking, fail: Bool = false, _ first: @escaping @Sendable () async throws -> Void)
        async throws -> (release: DispatchSemaphore, first: Task<Void, any Error>) {
        let release = DispatchSemaphore(value: 0)
        memory.contents.withLock { $0.holdNextCommit = release; $0.failCommits = fail }
        let task = Task { try await first() }
        while memory.contents.withLock({ $0.plansPerCommit.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        return (release, task)
    }

    @Test func batchesThatWaitForTheCommitterAreCommittedInOneTransactionInArrivalOrder() async throws {
        let (tracker, memory) = try await Self.tracker()
        let (release, first) = try await Self.holdingTheCommit(memory) { _ = try await tracker.ingest(deviceId: "d0", fixes: [Self.fix(0)]) }
        var ingests: [Task<Tracker.IngestResult, any Error>] = []
        for device in 1..<6 {
            ingests.append(Task { try await tracker.ingest(deviceId: "d\(device)", fixes: [Self.fix(0)]) })
            try await Task.sleep(for: .milliseconds(20))  // in this order
        }
        try await Task.sleep(for: .milliseconds(200))
        release.signal()
        try await first.value
        var sequences: [Int64] = []
        for ingest in ingests { sequences += try await ingest.value.events.map(\.sequence) }
        #expect(memory.contents.withLock { $0.plansPerCommit } == [1, 5], "the five batches planned meanwhile share one commit")
        #expect(sequences == Array(2...6), "numbered in arrival order without gaps")
        #expect(memory.contents.withLock { $0.log.map(\.deviceId) } == (0..<6).map { "d\($0)" })
    }

    @Test func aFailedCommitFailsItsCallersAndTheBatchesPlannedOnItAndReloads() async throws {
        let (tracker, memory) = try await Self.tracker()
        let writer = try #require(tracker.writer as? GroupCommitWriter)
        let loadsBefore = memory.contents.withLock { $0.loads }
        let (release, failing) = try await Self.holdingTheCommit(memory, fail: true) {
            _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        }
        let onTop = Task { try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)]) }
        // Planned on the failing one's state (waited for, not slept: a loaded machine plans late).
        let deadline = ContinuousClock.now + .seconds(30)
        while writer.plannedBatches == 0 {
            try #require(ContinuousClock.now < deadline, "the second batch was never planned")
            try await Task.sleep(for: .milliseconds(10))
        }
        memory.contents.withLock { $0.failCommits = false }
        release.signal()
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await failing.value }
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await onTop.value }
        #expect(memory.contents.withLock { $0.loads } == loadsBefore + 1, "the state was reloaded once")
        #expect(try await tracker.read { $0.lastSequence } == 0)
        #expect(try await tracker.read { $0.devices.isEmpty }, "neither batch is in the state")
        let retried = try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)])
        #expect(retried.events.map(\.sequence) == [1], "the sequence the failed commit used is issued again")
        #expect(memory.contents.withLock { $0.log.map(\.sequence) } == [1])
    }

    @Test func aFailedSubscriptionCommitPutsTheStateBackToTheStores() async throws {
        let (tracker, memory) = try await Self.tracker()
        let loadsBefore = memory.contents.withLock { $0.loads }
        memory.contents.withLock { $0.failCommits = true }
        await #expect(throws: MemoryTracking.InjectedFailure.self) {
            try await tracker.subscribe { id, createdAt in
                Subscription(id: id, maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: createdAt)
            }
        }
        memory.contents.withLock { $0.failCommits = false }
        #expect(memory.contents.withLock { $0.loads } == loadsBefore + 1)
        #expect(try await tracker.read { $0.subscriptions.count } == 1, "the refused subscription is not in the state")
    }

    @Test func whenTheReloadAlsoFailsEveryCallAnswersStateLost() async throws {
        let (tracker, memory) = try await Self.tracker()
        memory.contents.withLock { $0.failCommits = true; $0.failLoads = true }
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)]) }
        memory.contents.withLock { $0.failCommits = false; $0.failLoads = false }
        await #expect(throws: TrackerError.stateLost) { try await tracker.ingest(deviceId: "van", fixes: [Self.fix(1)]) }
        await #expect(throws: TrackerError.stateLost) { try await tracker.read { $0.lastSequence } }
        await #expect(throws: TrackerError.stateLost) { try await tracker.unsubscribe("none") }
    }
}
