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
}
