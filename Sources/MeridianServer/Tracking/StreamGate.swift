import MeridianHTTP
import CoreMetrics
import HTTPTypes
import Access
import Synchronization
import Timeline

/// Caps the event streams and long polls each key holds open at once; one more answers 429. A
/// ``Lease`` holds a place until it is released or dropped (an SSE body keeps its lease until the
/// stream ends). While a key holds places, the gate looks its key up every ``revocationCheck``:
/// once the key is revoked (by this process, another one, or `meridian keys revoke`), each of its
/// leases says so, and its streams and long polls end (``Lease/whileValid(_:)``).
final class StreamGate: Sendable {
    /// A held place; released once, explicitly or when the lease goes away.
    final class Lease: Sendable {
        private let release: @Sendable () -> Void
        private let released = Atomic<Bool>(false)
        /// Moves past 0 once the lease's key is revoked.
        let revocation: SequenceSignal

        fileprivate init(revocation: SequenceSignal, release: @escaping @Sendable () -> Void) {
            self.revocation = revocation
            self.release = release
        }

        func end() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { release() }
        }

        /// Whether the lease's key was revoked since it was taken.
        var isRevoked: Bool { revocation.latest > 0 }

        /// Runs `body` until it returns or the key is revoked, whichever is first; then
        /// `body` is cancelled and this throws ``KeyRevoked``.
        func whileValid<T: Sendable>(_ body: @Sendable @escaping () async throws -> T) async throws -> T {
            // Revoked already: nothing more is read for it (the race below may start the body first).
            if isRevoked { throw KeyRevoked() }
            let revocation = revocation
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    await revocation.wait(after: 0, timeout: .seconds(365 * 86_400))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else { throw KeyRevoked() }
                return value
            }
        }

        /// ``whileValid(_:)`` for a long poll: a revoked key's wait ends in 401, as its next request would.
        func whileValidOrRefused<T: Sendable>(_ body: @Sendable @escaping () async throws -> T) async throws -> T {
            do {
                return try await whileValid(body)
            } catch is KeyRevoked {
                throw ProblemError(.unauthorized, detail: "the key of this long poll was revoked while it waited")
            }
        }

        deinit { end() }
    }

    /// The key of a stream or long poll was revoked while it was open.
    struct KeyRevoked: Error {}

    /// How often the keys of open streams are looked up.
    static let revocationCheck: Duration = .milliseconds(250)

    private struct State {
        var open: [String: Int] = [:]
        /// The revocation signal of every open lease, by key.
        var signals: [String: [UInt64: SequenceSignal]] = [:]
        var nextLease: UInt64 = 0
        var watching = false
    }

    /// Most open streams per key.
    let limit: Int
    private let state = Mutex(State())
    private let metrics: ServerMetrics
    /// Whether the key with this id is revoked (or gone) now.
    private let isRevoked: @Sendable (String) -> Bool

    init(limit: Int, metrics: ServerMetrics, isRevoked: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.limit = limit
        self.metrics = metrics
        self.isRevoked = isRevoked
    }

    /// Open mode's callers share one place count (and no key can be revoked).
    private static let openMode = "open mode"

    /// A place for the current caller's key (open mode shares one), or 429 when it holds `limit` already.
    func enter() throws -> Lease {
        let key = try RequestScope.current().keyID ?? Self.openMode
        let revocation = SequenceSignal(latest: 0)
        let (total, lease, startWatching) = try state.withLock { state -> (Int, UInt64, Bool) in
            let held = state.open[key, default: 0]
            guard held < limit else {
                throw ProblemError(.tooManyRequests, detail: "this key holds \(limit) open event streams and long polls, the most it may; close one first")
            }
            state.open[key] = held + 1
            state.nextLease += 1
            state.signals[key, default: [:]][state.nextLease] = revocation
            let start = !state.watching && key != Self.openMode
            if start { state.watching = true }
            return (state.open.values.reduce(0, +), state.nextLease, start)
        }
        metrics.openStreams.record(total)
        if startWatching { Task { await self.watch() } }
        return Lease(revocation: revocation) { [self] in
            let total = state.withLock { state -> Int in
                state.open[key, default: 1] -= 1
                if state.open[key] == 0 { state.open[key] = nil }
                state.signals[key]?[lease] = nil
                if state.signals[key]?.isEmpty == true { state.signals[key] = nil }
                return state.open.values.reduce(0, +)
            }
            metrics.openStreams.record(total)
        }
    }

    /// Looks up the keys holding places until none does, revoking the leases of revoked keys.
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.revocationCheck)
            let keys = state.withLock { state -> [String] in
                let keys = state.signals.keys.filter { $0 != Self.openMode }
                if keys.isEmpty { state.watching = false }
                return Array(keys)
            }
            if keys.isEmpty { return }
            for key in keys where isRevoked(key) {
                let signals = state.withLock { Array(($0.signals[key] ?? [:]).values) }
                for signal in signals { signal.advance(to: 1) }
            }
        }
    }
}
