import Synchronization

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

extension Task where Failure == any Error {
    /// The task's value, for a waiter that may give up: when the waiting task is cancelled, this
    /// throws `CancellationError` at once, while the task itself runs on (others may wait for it).
    public func valueUnlessCancelled() async throws -> Success {
        let once = ResumeOnce<Success>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Success, any Error>) in
                once.start(continuation)
                Task<Void, Never> { once.finish(await self.result) }
            }
        } onCancel: {
            once.finish(.failure(Swift.CancellationError()))
        }
    }
}

/// A continuation resumed once, by whichever result comes first (the others are dropped): for
/// racing work against a watchdog or a cancellation.
public final class ResumeOnce<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, result: Result<T, any Error>?)>((nil, nil))

    public init() {}

    /// The continuation to resume; at once when a result came first.
    public func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resumes with `result`, unless a result came first.
    public func finish(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
