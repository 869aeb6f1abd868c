import Synchronization
import Testing
import Timeline

@Suite struct AsyncGateTests {
    /// Bodies that hold the gate until `release` finishes, counting how many run at once.
    final class Probe: Sendable {
        let now = Mutex(0), most = Mutex(0)
        let (release, keep) = AsyncStream<Void>.makeStream()

        func body() async -> Int {
            let running = now.withLock { $0 += 1; return $0 }
            most.withLock { $0 = max($0, running) }
            for await _ in release {}
            now.withLock { $0 -= 1 }
            return running
        }
    }

    @Test func atMostWidthBodiesRunAtOnceAndTheRestFollow() async throws {
        let gate = AsyncGate(width: 2), probe = Probe()
        let tasks = (0..<6).map { _ in Task { try await gate.run { await probe.body() } } }
        while probe.now.withLock({ $0 }) < 2 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(gate.running == 2 && probe.now.withLock { $0 } == 2, "the other four wait")
        probe.keep.finish()
        for task in tasks { _ = try await task.value }
        #expect(probe.most.withLock { $0 } == 2)
        #expect(gate.running == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueueAndThrows() async throws {
        let gate = AsyncGate(width: 1), probe = Probe()
        let holder = Task { try await gate.run { await probe.body() } }
        while gate.running < 1 { await Task.yield() }
        let waiter = Task { try await gate.run { 42 } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // The gate is still whole: the holder ends, and the next body runs.
        probe.keep.finish()
        _ = try await holder.value
        #expect(try await gate.run { 7 } == 7)
        #expect(gate.running == 0)
    }

    @Test func anAlreadyCancelledTaskDoesNotWaitForever() async throws {
        let gate = AsyncGate(width: 1), probe = Probe()
        let holder = Task { try await gate.run { await probe.body() } }
        while gate.running < 1 { await Task.yield() }
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await gate.run { 1 }
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        probe.keep.finish()
        _ = try await holder.value
    }
}
