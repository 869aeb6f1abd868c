import OpenAPIRuntime

/// When a request the server did not take is sent again: after a 429 (too many requests), 503
/// (not ready, the database away, a deadline passed) or 507 (no space left), and after a dropped
/// connection when the request is safe to repeat. A `Retry-After` from the server is honoured;
/// otherwise the wait doubles from ``initialDelay`` up to ``maxDelay``, each a random fraction
/// ("full jitter") of that, so that many clients refused at once do not come back at once.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included; 1 never retries.
    public var maxAttempts: Int
    /// The wait before the first retry when the server named none (the ceiling of its jitter).
    public var initialDelay: Duration
    /// The longest wait between two attempts; a `Retry-After` beyond it ends the retries.
    public var maxDelay: Duration

    /// A policy; the defaults try 5 times over at most about half a minute.
    public init(maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// Never retries.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// HTTP statuses that mean "not done, ask again later".
    public static let retriedStatuses: Set<Int> = [429, 503, 507]

    /// How long to wait after failed attempt `attempt` (1 for the first), or nil to give up:
    /// the attempts are spent, or the server asks for a longer wait than ``maxDelay``.
    /// - Parameter retryAfter: the server's `Retry-After`, in seconds.
    public func delay(afterAttempt attempt: Int, retryAfter: Int?) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter {
            let asked = Duration.seconds(retryAfter)
            return asked <= maxDelay ? asked : nil
        }
        let ceiling = min(maxDelay, initialDelay * (1 << min(attempt - 1, 20)))
        return ceiling * Double.random(in: 0...1)
    }
}

extension RetryPolicy {
    /// Runs `attempt` until it succeeds, retrying a ``MeridianError`` of a status in
    /// ``retriedStatuses`` and a request that got no answer (the connection dropped or could not be
    /// made), waiting ``delay(afterAttempt:retryAfter:)`` between tries. Only for requests that are
    /// safe to repeat: a read, or a write the server recognises when it sees it again.
    /// - Returns: what `attempt` returned, and how many attempts it took.
    public func run<Answer: Sendable>(_ attempt: () async throws -> Answer) async throws -> (answer: Answer, attempts: Int) {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return (try await attempt(), attempts)
            } catch let error as MeridianError where Self.retriedStatuses.contains(error.status) {
                guard let wait = delay(afterAttempt: attempts, retryAfter: error.retryAfter) else { throw error }
                try await Task.sleep(for: wait)
            } catch let error as ClientError where error.response == nil && !(error.underlyingError is CancellationError) {
                guard let wait = delay(afterAttempt: attempts, retryAfter: nil) else { throw error }
                try await Task.sleep(for: wait)
            }
        }
    }
}
