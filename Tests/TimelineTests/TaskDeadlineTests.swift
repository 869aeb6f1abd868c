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
        #expect(await task.ends(within: .milliseconds(200)) == false)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(200) && waited < .seconds(10))
        keep.finish()
        #expect(await task.ends(within: .seconds(30)), "it ends once its stream does")
    }
}
