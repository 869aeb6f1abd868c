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
        let worker = Task { try await work(committing) }
        let outcome = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.start(continuation)
                let watchdog = Task { [self] in
                    var closedSince: ContinuousClock.Instant?
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        guard isClosed else { continue }
                        let since = closedSince ?? .now
                        closedSince = since
                        if ContinuousClock.now - since >= Self.abandonAfter {
                            outcome.finish(.failure(committing.isSet ? StorageError.commitOutcomeUnknown : StorageError.unavailable))
                            worker.cancel()
                            return
                        }
                    }
                }
                Task {
                    let result = await worker.result
                    watchdog.cancel()
                    // A socket error under the client is the database gone, as a closed connection is.
                    outcome.finish(result.mapError { StorageError.connectionLost($0) ?? $0 })
                }
            }
        } onCancel: {
            worker.cancel()
        }
    }
}

/// Set by transaction work once it has sent `COMMIT`.
final class CommitFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
