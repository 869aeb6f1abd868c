import Synchronization
import Testing
import Timeline

/// Group commit: what waits is committed together, in order; a refused item fails alone; an error
/// the queue must not retry item by item (the database unreachable) reaches every caller once.
@Suite struct CommitQueueTests {
    struct Refused: Error {}
    struct Unreachable: Error {}

    /// A commit that records each group, waits at its first call until `release` opens (so the
    /// items submitted meanwhile make one group), and fails groups holding `failing`.
    final class Store: Sendable {
        let groups = Mutex<[[Int]]>([])
        let released = Mutex(false)
        let failing: Int?
        let error: any Error & Sendable

        init(failing: Int?, error: any Error & Sendable) { (self.failing, self.error) = (failing, error) }

        func commit(_ group: [Int]) async throws -> [String] {
            let first = groups.withLock { groups in
                groups.append(group)
                return groups.count == 1
            }
            if first { while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) } }
            if let failing, group.contains(failing) { throw error }
            return group.map { "#\($0)" }
        }
    }

    static func run(_ store: Store, alone: @escaping @Sendable (any Error) -> Bool) async throws -> [Result<String, any Error>] {
        let queue = CommitQueue<Int, String>(alone: alone) { try await store.commit($0) }
        var tasks: [Task<String, any Error>] = [Task { try await queue.submit(0) }]
        while store.groups.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(2)) }
        for item in 1...4 {
            tasks.append(Task { try await queue.submit(item) })
            while queue.waiting < item { try await Task.sleep(for: .milliseconds(2)) }  // in this order
        }
        store.released.withLock { $0 = true }
        var results: [Result<String, any Error>] = []
        for task in tasks { results.append(await task.result) }
        return results
    }

    @Test func whatWaitsIsOneGroupInOrderAndARefusedItemFailsAlone() async throws {
        let store = Store(failing: 3, error: Refused())
        let results = try await Self.run(store, alone: { $0 is Refused })
        #expect(store.groups.withLock { $0 } == [[0], [1, 2, 3, 4], [1], [2], [3], [4]])
        #expect(results.map { try? $0.get() } == ["#0", "#1", "#2", nil, "#4"])
    }

    @Test func anErrorNotToRetryAloneReachesEveryCallerOfTheGroup() async throws {
        let store = Store(failing: 3, error: Unreachable())
        let results = try await Self.run(store, alone: { $0 is Refused })
        #expect(store.groups.withLock { $0 } == [[0], [1, 2, 3, 4]], "no item retried")
        #expect(results.map { try? $0.get() } == ["#0", nil, nil, nil, nil])
    }

    @Test func aCallerCancelledWhileItsItemWaitsLeavesTheQueue() async throws {
        let store = Store(failing: nil, error: Refused())
        let queue = CommitQueue<Int, String> { try await store.commit($0) }
        let first = Task { try await queue.submit(0) }
        while store.groups.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(2)) }
        let leaving = Task { try await queue.submit(1) }
        while queue.waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
        let staying = Task { try await queue.submit(2) }
        while queue.waiting < 2 { try await Task.sleep(for: .milliseconds(2)) }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(queue.waiting == 1)
        store.released.withLock { $0 = true }
        #expect(try await first.value == "#0")
        #expect(try await staying.value == "#2")
        #expect(store.groups.withLock { $0 } == [[0], [2]], "the cancelled item was never committed")
    }
}
