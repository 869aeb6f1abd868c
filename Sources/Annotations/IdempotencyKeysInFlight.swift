import Synchronization

/// The idempotency keys whose first request this server is still processing, so a duplicate
/// that arrives meanwhile is refused at once (409, as draft-ietf-httpapi-idempotency-key-header
/// says), not queued behind it. One per tenant: keys are the tenant's. (A duplicate on another
/// instance waits for the first's transaction, then replays it.)
public final class IdempotencyKeysInFlight: Sendable {
    private let keys = Mutex<Set<String>>([])

    public init() {}

    /// Runs `work` while holding `key`; throws ``AnnotationStoreError/idempotencyKeyInFlight(_:)``
    /// when another request holds it. Nil runs `work` with nothing held.
    public func holding<T: Sendable>(_ key: String?, _ work: () async throws -> T) async throws -> T {
        guard let key else { return try await work() }
        guard keys.withLock({ $0.insert(key).inserted }) else { throw AnnotationStoreError.idempotencyKeyInFlight(key) }
        defer { _ = keys.withLock { $0.remove(key) } }
        return try await work()
    }
}
