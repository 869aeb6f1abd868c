import PostgresNIO
import Synchronization
import Timeline

extension PostgresConnection {
    /// How long work may go on after its connection closed before it is abandoned.
    static let abandonAfter: Duration = .seconds(1)

    /// Runs `work` on this connection, and answers for it once the connection has been closed for
    /// ``abandonAfter`` while `work` still runs: with ``StorageError/commitOutcomeUnknown`` when
    /// `work` had sent `COMMIT` (it set its flag), else ``StorageError/unavailable``.
    ///
    /// postgres-nio 1.33.2 loses a query written to a connection in the instant it closes (its
    /// promise is never completed), and a wait on it cannot be cancelled: without this, the request
    /// (and any lock or turn it holds, such as a tenant's tracking) would wait forever. Abandoned
    /// work runs on in its own task until it ends, which such work never does; it holds only the
    /// closed connection.
    func abandoningIfClosed<T: Sendable>(_ work: @escaping @Sendable (_ committing: CommitFlag) async throws -> T) async throws -> T {
        let committing = CommitFlag()
        let outcome = ResumeOnce<T>()
        let worker = Task {
            do { outcome.finish(.success(try await work(committing))) } catch {
                // A socket error under the client is the database gone, as a closed connection is.
                outcome.finish(.failure(StorageError.connectionLost(error) ?? error))
            }
        }
        let watched = ClosedConnectionWatch.shared.watch(self) {
            outcome.finish(.failure(committing.isSet ? StorageError.commitOutcomeUnknown : StorageError.unavailable))
            worker.cancel()
        }
        defer { ClosedConnectionWatch.shared.unwatch(watched) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.start(continuation)
            }
        } onCancel: {
            worker.cancel()
        }
    }
}

/// The connections of work in flight (``PostgresConnection/abandoningIfClosed(_:)``), looked at by
/// one task every 100 ms: work whose connection has been closed for
/// ``PostgresConnection/abandonAfter`` is abandoned. One watch for the process, not a watchdog
/// task with its timer and a waiting task per statement.
final class ClosedConnectionWatch: Sendable {
    static let shared = ClosedConnectionWatch()

    private struct Watched {
        let connection: PostgresConnection
        let abandon: @Sendable () -> Void
        var closedSince: ContinuousClock.Instant?
    }

    private let watched = Mutex<(next: UInt64, all: [UInt64: Watched], looking: Bool)>((0, [:], false))

    /// Watches `connection` until ``unwatch(_:)``; `abandon` runs once if it stays closed too long.
    func watch(_ connection: PostgresConnection, abandon: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, start) = watched.withLock { state -> (UInt64, Bool) in
            state.next += 1
            state.all[state.next] = Watched(connection: connection, abandon: abandon)
            defer { state.looking = true }
            return (state.next, !state.looking)
        }
        if start { Task.detached { await self.look() } }
        return id
    }

    func unwatch(_ id: UInt64) {
        _ = watched.withLock { $0.all.removeValue(forKey: id) }
    }

    /// Every 100 ms while anything is watched; then it ends (the next watch starts it again).
    private func look() async {
        while true {
            try? await Task.sleep(for: .milliseconds(100))
            let now = ContinuousClock.now
            let due = watched.withLock { state -> [@Sendable () -> Void]? in
                guard !state.all.isEmpty else {
                    state.looking = false
                    return nil
                }
                var due: [@Sendable () -> Void] = []
                for (id, var work) in state.all {
                    guard work.connection.isClosed else { continue }
                    let since = work.closedSince ?? now
                    if now - since >= PostgresConnection.abandonAfter {
                        due.append(work.abandon)
                        state.all[id] = nil
                    } else {
                        work.closedSince = since
                        state.all[id] = work
                    }
                }
                return due
            }
            guard let due else { return }
            for abandon in due { abandon() }
        }
    }
}

/// Set by transaction work once it has sent `COMMIT`.
final class CommitFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
