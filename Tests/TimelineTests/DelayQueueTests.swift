import Synchronization
import Testing
import Timeline

@Suite struct DelayQueueTests {
    @Test func anActionRunsAfterTheDelayUnlessCancelled() async throws {
        let queue = DelayQueue(delay: .milliseconds(50))
        let (ran, report) = AsyncStream<Int>.makeStream()
        let start = ContinuousClock.now
        let kept = queue.schedule { report.yield(1) }
        let cancelled = queue.schedule { report.yield(2) }
        queue.cancel(cancelled)
        _ = kept
        var iterator = ran.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        // The cancelled one never runs: a third, scheduled after it, is the next to.
        _ = queue.schedule { report.yield(3) }
        #expect(await iterator.next() == 3)
        #expect(queue.pending == 0)
    }

    @Test func manyActionsRunInTheirOrderAndCancelledOnesAreForgotten() async throws {
        let queue = DelayQueue(delay: .milliseconds(20))
        let order = Mutex<[Int]>([])
        let (done, report) = AsyncStream<Void>.makeStream()
        var tokens: [Int] = []
        for number in 0..<3000 {
            tokens.append(queue.schedule {
                let count = order.withLock { $0.append(number); return $0.count }
                if count == 1500 { report.yield() }
            })
        }
        // Every odd one cancelled, as requests that answered before their limit.
        for (number, token) in tokens.enumerated() where number % 2 == 1 { queue.cancel(token) }
        var iterator = done.makeAsyncIterator()
        await iterator.next()
        #expect(order.withLock { $0 } == Array(stride(from: 0, to: 3000, by: 2)))
        #expect(queue.pending == 0)
        // It starts again after going idle.
        let (again, more) = AsyncStream<Void>.makeStream()
        _ = queue.schedule { more.yield() }
        var next = again.makeAsyncIterator()
        await next.next()
    }

    @Test func aSignalRunsAnActionOnceItAdvancesPastItsSequenceUnlessCancelled() {
        let signal = SequenceSignal(latest: 0)
        let ran = Mutex<[String]>([])
        let first = signal.onAdvance(after: 0) { ran.withLock { $0.append("first") } }
        let cancelled = signal.onAdvance(after: 0) { ran.withLock { $0.append("cancelled") } }
        let later = signal.onAdvance(after: 1) { ran.withLock { $0.append("later") } }
        #expect(first != nil && cancelled != nil && later != nil)
        signal.cancel(try! #require(cancelled))
        signal.advance(to: 1)
        #expect(ran.withLock { $0 } == ["first"])
        signal.advance(to: 2)
        #expect(ran.withLock { $0 } == ["first", "later"])
        // Already past: at once, no token.
        #expect(signal.onAdvance(after: 1) { ran.withLock { $0.append("now") } } == nil)
        #expect(ran.withLock { $0 } == ["first", "later", "now"])
    }
}
