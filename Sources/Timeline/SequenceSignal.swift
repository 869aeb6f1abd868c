import Synchronization

/// Wakes long-poll readers when a feed grows: writers ``advance(to:)`` after they commit,
/// readers ``wait(after:timeout:)`` until the feed has an entry after theirs.
public final class SequenceSignal: Sendable {
    private struct Waiter { var after: Int64; var resume: @Sendable () -> Void }
    private struct State {
        var latest: Int64
        var nextToken = 0
        var waiters: [Int: Waiter] = [:]
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    /// A signal whose feed currently ends at `latest`.
    public init(latest: Int64) {
        state = Mutex(State(latest: latest))
    }

    /// The last sequence a writer announced.
    public var latest: Int64 { state.withLock { $0.latest } }

    /// Announces that the feed now ends at `sequence` (or later) and wakes whoever waited for it.
    public func advance(to sequence: Int64) {
        let woken = state.withLock { state -> [@Sendable () -> Void] in
            guard sequence > state.latest else { return [] }
            state.latest = sequence
            let ready = state.waiters.filter { $0.value.after < sequence }
            for token in ready.keys { state.waiters[token] = nil }
            return ready.values.map(\.resume)
        }
        for resume in woken { resume() }
    }

    /// Runs `action` once the feed ends after `sequence`: at once when it does already (then the
    /// token is nil), else when a writer advances it, unless ``cancel(_:)`` comes first.
    public func onAdvance(after sequence: Int64, _ action: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard state.latest <= sequence else { return nil }
            state.nextToken += 1
            state.waiters[state.nextToken] = Waiter(after: sequence, resume: action)
            return state.nextToken
        }
        if token == nil { action() }
        return token
    }

    /// Forgets the action ``onAdvance(after:_:)`` registered (nothing when it ran already).
    public func cancel(_ token: Int) {
        _ = state.withLock { $0.waiters.removeValue(forKey: token) }
    }

    /// Returns once the feed ends after `sequence`, when `timeout` has passed, or when the task is cancelled.
    public func wait(after sequence: Int64, timeout: Duration) async {
        guard timeout > .zero, latest <= sequence else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForAdvance(after: sequence) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForAdvance(after sequence: Int64) async {
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.latest > sequence || state.cancelled.remove(token) != nil { return true }
                    state.waiters[token] = Waiter(after: sequence, resume: { continuation.resume() })
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: token) { return Optional(waiter) }
                state.cancelled.insert(token)  // cancelled before it registered
                return nil
            }
            waiter?.resume()
        }
        state.withLock { _ = $0.cancelled.remove(token) }
    }
}
