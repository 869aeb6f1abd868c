import Synchronization

/// A semaphore for async code: at most `width` ``run(_:)`` bodies at once (one by default: a
/// lock), the others waiting in the order they asked, without holding a thread. A waiter whose
/// task is cancelled (its request timed out, its client left) leaves the queue and throws
/// `CancellationError`; a body that has started runs to its end.
public final class AsyncGate: Sendable {
    private struct State {
        var running = 0
        var nextTicket: UInt64 = 0
        var waiting: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }
    private let state = Mutex(State())
    /// Bodies that may run at once.
    public let width: Int

    public init(width: Int = 1) {
        precondition(width > 0)
        self.width = width
    }

    /// Runs `body` once fewer than ``width`` earlier bodies are running.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }

    /// Bodies running now.
    public var running: Int { state.withLock { $0.running } }

    /// Runs `body` once it has its turn at every gate of `gates`, entered in order.
    public static func through<T: Sendable>(_ gates: some Collection<AsyncGate>, _ body: () async throws -> T) async throws -> T {
        guard let gate = gates.first else { return try await body() }
        return try await gate.run { try await through(gates.dropFirst(), body) }
    }

    private func enter() async throws {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let entered = state.withLock { state in
                    if state.running < width, state.waiting.isEmpty {
                        state.running += 1
                        return true
                    }
                    state.waiting.append((ticket, continuation))
                    return false
                }
                if entered { continuation.resume() }
                // Cancelled before it queued: the handler found nothing to remove.
                if !entered, Task.isCancelled { abandon(ticket) }
            }
        } onCancel: {
            abandon(ticket)
        }
    }

    /// Takes `ticket` out of the queue, if it still waits there, and throws in its task.
    private func abandon(_ ticket: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.waiting.remove(at: index).continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation  // handed over: `running` stays
        }
        next?.resume()
    }
}
