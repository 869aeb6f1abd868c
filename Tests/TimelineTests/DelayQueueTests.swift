import Synchronization
import Testing
import Timeline

@Suite struct DelayQueueTests {
    /// Polls `condition` every 20 ms for at most 60 s: a wait that ends whether or not it holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func anActionRunsAfterTheDelayUnlessCancelled() async throws {
        // A delay far beyond the moment between scheduling and cancelling, even on a loaded machine.
        let queue = DelayQueue(delay: .seconds(1))
        let ran = Mutex<[Int]>([])
        let start = ContinuousClock.now
        _ = queue.schedule { ran.withLock { $0.append(1) } }
        queue.cancel(queue.schedule { ran.withLock { $0.append(2) } })
        _ = queue.schedule { ran.withLock { $0.append(3) } }
        #expect(await Self.eventually { ran.withLock { $0.count } == 2 })
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(ran.withLock { $0 } == [1, 3])
        #expect(queue.pending == 0)
        // It starts again after going idle.
        _ = queue.schedule { ran.withLock { $0.append(4) } }
        #expect(await Self.eventually { ran.withLock { $0.count } == 3 })
        #expect(ran.withLock { $0 } == [1, 3, 4])
    }

    @Test func manyActionsRunInTheirOrderAndCancelledOnesAreForgotten() async throws {
        let queue = DelayQueue(delay: .seconds(1))
        let order = Mutex<[Int]>([])
        for number in 0..<3000 {
            let token = queue.schedule { order.withLock { $0.append(number) } }
            // Every odd one cancelled, as a request answered before its limit.
            if number % 2 == 1 { queue.cancel(token) }
        }
        #expect(queue.pending == 1500)
        #expect(await Self.eventually { order.withLock { $0.count } == 1500 })
        #expect(order.withLock { $0 } == Array(stride(from: 0, to: 3000, by: 2)))
        #expect(queue.pending == 0)
    }

    @Test func aSignalRunsAnActionOnceItAdvancesPastItsSequenceUnlessCancelled() throws {
        let signal = SequenceSignal(latest: 0)
        let ran = Mutex<[String]>([])
        let first = signal.onAdvance(after: 0) { ran.withLock { $0.append("first") } }
        let cancelled = signal.onAdvance(after: 0) { ran.withLock { $0.append("cancelled") } }
        let later = signal.onAdvance(after: 1) { ran.withLock { $0.append("later") } }
        #expect(first != nil && later != nil)
        signal.cancel(try #require(cancelled))
        signal.advance(to: 1)
        #expect(ran.withLock { $0 } == ["first"])
        signal.advance(to: 2)
        #expect(ran.withLock { $0 } == ["first", "later"])
        // Already past: at once, no token.
        #expect(signal.onAdvance(after: 1) { ran.withLock { $0.append("now") } } == nil)
        #expect(ran.withLock { $0 } == ["first", "later", "now"])
    }
}
