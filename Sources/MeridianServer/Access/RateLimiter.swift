import MeridianHTTP
import Synchronization

/// A token bucket per API key: `rate` requests per second on average, `burst` at once. A request
/// finding the bucket empty is refused with the time until a token is back (429 `Retry-After`).
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: ContinuousClock.Instant }

    /// Tokens added per second.
    let rate: Double
    /// Most tokens a bucket holds.
    let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// Takes a token for `key`; nil when it got one, else how long until one is back.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .seconds((1 - bucket.tokens) / rate) }
            bucket.tokens -= 1
            return nil
        }
    }
}
