extension Task where Success == Void, Failure == Never {
    /// Waits for the task to end, at most `limit`; true when it ended. The caller stops waiting
    /// at the limit whether or not the task ever ends (a task that ignores cancellation).
    public func ends(within limit: Duration) async -> Bool {
        let (outcome, report) = AsyncStream<Bool>.makeStream()
        let watching = Task<Void, Never> {
            await value
            report.yield(true)
        }
        let timing = Task<Void, Never> {
            try? await Task<Never, Never>.sleep(for: limit)
            report.yield(false)
        }
        var iterator = outcome.makeAsyncIterator()
        let ended = await iterator.next() ?? false
        report.finish()
        timing.cancel()
        _ = watching
        return ended
    }
}
