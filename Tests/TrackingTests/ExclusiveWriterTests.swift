import Dispatch
import MapGeometry
import Synchronization
import Testing
import Timeline
import Tracking

/// The exclusive writer on an in-memory shared store: instances take turns under the tenant lock,
/// an instance whose state is behind the store's revision (another committed) catches up first,
/// and after a failed commit the next change reloads; events stay gap-free and in order.
@Suite struct ExclusiveWriterTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    /// An instance: a tracker over its own exclusive writer on `store`, sharing the id source.
    static func instance(_ store: SharedMemoryStore, ids: UUIDv7Generator) async throws -> Tracker {
        Tracker(writer: try await ExclusiveWriter(store: store), now: { start.adding(seconds: 3600) }, newID: { ids.next().description })
    }

    static func subscribeToEveryDevice(_ tracker: Tracker) async throws {
        _ = try await tracker.subscribe { id, createdAt in
            Subscription(id: id, maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: createdAt)
        }
    }

    static func fix(_ seconds: Double) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: 45.5, longitude: -122.68), timestamp: start.adding(seconds: seconds), horizontalAccuracy: 5)
    }

    @Test func anInstanceBehindTheStoreCatchesUpBeforePlanning() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let (a, b) = (try await Self.instance(store, ids: ids), try await Self.instance(store, ids: ids))
        try await Self.subscribeToEveryDevice(a)
        let loads = memory.contents.withLock { $0.loads }
        // B loaded before A subscribed: it must reload to see the subscription, and number after A's events.
        let first = try await b.ingest(deviceId: "van", fixes: [Self.fix(0)])
        #expect(first.events.map(\.sequence) == [1], "B evaluated against the subscription A committed")
        #expect(memory.contents.withLock { $0.loads } == loads + 1, "one catch-up reload")
        let second = try await a.ingest(deviceId: "bus", fixes: [Self.fix(0)])
        #expect(second.events.map(\.sequence) == [2], "A caught up with B's event before numbering its own")
        let third = try await a.ingest(deviceId: "car", fixes: [Self.fix(0)])
        #expect(third.events.map(\.sequence) == [3])
        #expect(memory.contents.withLock { $0.loads } == loads + 2, "A's own commit did not make it reload again")
        #expect(try await b.read { $0.lastSequence } == 3, "a read catches up too")
    }

    @Test func concurrentIngestsOnTwoInstancesNumberEventsGapFreeInCommitOrder() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let instances = [try await Self.instance(store, ids: ids), try await Self.instance(store, ids: ids)]
        try await Self.subscribeToEveryDevice(instances[0])
        let sequences = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for device in 0..<40 {
                group.addTask { try await instances[device % 2].ingest(deviceId: "d\(device)", fixes: [Self.fix(0)]).events.map(\.sequence) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(sequences.sorted() == Array(1...40), "each device's first fix is one event, none numbered twice, no gap")
        let log = memory.contents.withLock { $0.log }
        #expect(log.map(\.sequence) == Array(1...40), "committed in sequence order")
        #expect(Set(log.map(\.deviceId)).count == 40)
    }

    @Test func afterAFailedCommitTheNextChangeReloadsAndReissuesTheSequence() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let tracker = try await Self.instance(store, ids: ids)
        try await Self.subscribeToEveryDevice(tracker)
        _ = try await tracker.ingest(deviceId: "van", fixes: [Self.fix(0)])
        memory.contents.withLock { $0.failCommits = true }
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)]) }
        #expect(memory.contents.withLock { $0.revision } == 2, "the failed transaction committed nothing")
        memory.contents.withLock { $0.failCommits = false }
        let loads = memory.contents.withLock { $0.loads }
        let retried = try await tracker.ingest(deviceId: "bus", fixes: [Self.fix(0)])
        #expect(memory.contents.withLock { $0.loads } == loads + 1, "the state was reloaded from the store")
        #expect(retried.events.map(\.sequence) == [2], "the sequence the failed commit used is issued again")
        #expect(memory.contents.withLock { $0.log.map(\.deviceId) } == ["van", "bus"])
    }

    @Test func aChangeThatDoesNotFitChangesNothingAndAFailedSubscribeIsNotKept() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let tracker = try await Self.instance(store, ids: ids)
        memory.contents.withLock { $0.failCommits = true }
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await Self.subscribeToEveryDevice(tracker) }
        memory.contents.withLock { $0.failCommits = false }
        #expect(try await tracker.read { $0.subscriptions.isEmpty }, "the refused subscription is not in the state")
        #expect(memory.contents.withLock { $0.revision } == 0)
        if case .notFound = try await tracker.unsubscribe("missing") {} else { Issue.record("an unknown subscription is not found") }
    }

    /// A change that finds nothing to write (a deadline another instance fired first) commits no
    /// revision: the other instances' states stay current, none reloads.
    @Test func aChangeWithNothingToWriteLeavesTheRevisionAndSendsNoOneReloading() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let a = try await Self.instance(store, ids: ids)
        try await Self.subscribeToEveryDevice(a)
        let b = try await ExclusiveWriter(store: store)
        let (revision, loads) = memory.contents.withLock { ($0.revision, $0.loads) }
        let answer = try await b.change { state in (state.subscriptions.count, nil as TrackingWrite?) }
        #expect(answer == 1, "B planned on the state it caught up to")
        #expect(memory.contents.withLock { $0.revision } == revision, "nothing written, no revision")
        #expect(try await a.read { $0.subscriptions.count } == 1)
        #expect(memory.contents.withLock { $0.loads } == loads, "A's state is still the store's: no reload")
        _ = try await a.ingest(deviceId: "van", fixes: [Self.fix(0)])
        #expect(memory.contents.withLock { $0.revision } == revision + 1)
    }

    /// Group commit: the batches that arrive while one transaction runs share the next, planned in
    /// arrival order, each answered after its commit.
    @Test func batchesThatWaitForATransactionShareTheNextInArrivalOrder() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let writer = try await ExclusiveWriter(store: store)
        let tracker = Tracker(writer: writer, now: { Self.start.adding(seconds: 3600) }, newID: { ids.next().description })
        try await Self.subscribeToEveryDevice(tracker)
        let (release, first) = try await GroupCommitWriterTests.holdingTheCommit(memory) {
            _ = try await tracker.ingest(deviceId: "d0", fixes: [Self.fix(0)])
        }
        var ingests: [Task<Tracker.IngestResult, any Error>] = []
        for device in 1..<6 {
            ingests.append(Task { try await tracker.ingest(deviceId: "d\(device)", fixes: [Self.fix(0)]) })
            while writer.queuedIngests < device { try await Task.sleep(for: .milliseconds(5)) }  // in this order
        }
        release.signal()
        try await first.value
        var sequences: [Int64] = []
        for ingest in ingests { sequences += try await ingest.value.events.map(\.sequence) }
        #expect(memory.contents.withLock { $0.plansPerCommit } == [1, 5], "the five batches that waited share one transaction")
        #expect(sequences == Array(2...6), "numbered in arrival order without gaps")
        #expect(memory.contents.withLock { $0.log.map(\.deviceId) } == (0..<6).map { "d\($0)" })
    }

    /// A batch whose commit fails fails alone: its group is tried again one batch at a time.
    @Test func aFailingBatchFailsAloneAndTheOthersOfItsGroupCommit() async throws {
        let memory = MemoryTracking(), store = SharedMemoryStore(memory), ids = UUIDv7Generator()
        let writer = try await ExclusiveWriter(store: store)
        let tracker = Tracker(writer: writer, now: { Self.start.adding(seconds: 3600) }, newID: { ids.next().description })
        try await Self.subscribeToEveryDevice(tracker)
        memory.contents.withLock { $0.failDevice = "poison" }
        let (release, first) = try await GroupCommitWriterTests.holdingTheCommit(memory) {
            _ = try await tracker.ingest(deviceId: "d0", fixes: [Self.fix(0)])
        }
        var ingests: [Task<Tracker.IngestResult, any Error>] = []
        for (index, device) in ["d1", "poison", "d2"].enumerated() {
            ingests.append(Task { try await tracker.ingest(deviceId: device, fixes: [Self.fix(0)]) })
            while writer.queuedIngests < index + 1 { try await Task.sleep(for: .milliseconds(5)) }
        }
        release.signal()
        try await first.value
        #expect(try await ingests[0].value.events.map(\.sequence) == [2])
        await #expect(throws: MemoryTracking.InjectedFailure.self) { try await ingests[1].value }
        #expect(try await ingests[2].value.events.map(\.sequence) == [3], "numbered after the one that failed, without a gap")
        #expect(memory.contents.withLock { $0.plansPerCommit } == [1, 3, 1, 1, 1], "the group, then each alone")
        #expect(memory.contents.withLock { $0.log.map(\.deviceId) } == ["d0", "d1", "d2"])
    }
}
