import Testing
import Timeline

@Suite struct TaskDeadlineTests {
    @Test func aTaskThatEndsIsReportedEnded() async {
        let task = Task<Void, Never> { try? await Task.sleep(for: .milliseconds(20)) }
        #expect(await task.ends(within: .seconds(30)))
    }

    @Test func aTaskThatNeverEndsIsGivenUpOnAtTheLimit() async {
        // Waits on a stream nobody finishes (and nobody cancels it): it does not end by itself.
        let (stream, keep) = AsyncStream<Int>.makeStream()
        let task = Task<Void, Never> { for await _ in stream {} }
        let start = ContinuousClock.now
        #expect(await task.ends(within: .milliseconds(200)) == false, "given up on while the task still runs")
        // No upper bound: on a loaded machine the sleep that ends the wait may resume late; that
        // it returned at all, the task still running, is what is under test.
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        keep.finish()
        #expect(await task.ends(within: .seconds(30)), "it ends once its stream does")
    }
}
