import CoreMetrics
import HTTPTypes
import Access
import Synchronization

/// Caps the event streams and long polls each key holds open at once; one more answers 429. A
/// ``Lease`` holds a place until it is released or dropped (an SSE body keeps its lease until the
/// stream ends).
final class StreamGate: Sendable {
    /// A held place; released once, explicitly or when the lease goes away.
    final class Lease: Sendable {
        private let release: @Sendable () -> Void
        private let released = Atomic<Bool>(false)

        fileprivate init(release: @escaping @Sendable () -> Void) { self.release = release }

        func end() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { release() }
        }

        deinit { end() }
    }

    /// Most open streams per key.
    let limit: Int
    private let open = Mutex<[String: Int]>([:])
    private let metrics: ServerMetrics

    init(limit: Int, metrics: ServerMetrics) {
        self.limit = limit
        self.metrics = metrics
    }

    /// A place for the current caller's key (open mode shares one), or 429 when it holds `limit` already.
    func enter() throws -> Lease {
        let key = try RequestScope.current().keyID ?? "open mode"
        let total = try open.withLock { open -> Int in
            let held = open[key, default: 0]
            guard held < limit else {
                throw ProblemError(.tooManyRequests, detail: "this key holds \(limit) open event streams and long polls, the most it may; close one first")
            }
            open[key] = held + 1
            return open.values.reduce(0, +)
        }
        metrics.openStreams.record(total)
        return Lease { [self] in
            let total = open.withLock { open -> Int in
                open[key, default: 1] -= 1
                if open[key] == 0 { open[key] = nil }
                return open.values.reduce(0, +)
            }
            metrics.openStreams.record(total)
        }
    }
}
