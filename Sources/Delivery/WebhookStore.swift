public import Timeline

/// What delivery needs from storage, for one tenant. Every method is one transaction.
public protocol WebhookStore: Sendable {
    /// Stores a new webhook.
    func insert(_ webhook: Webhook) async throws
    /// The webhook with `id`, nil when there is none (never was, or deleted).
    func webhook(id: String) async throws -> Webhook?
    /// Webhooks in id order after `after`, at most `limit`.
    func webhooks(after: String?, limit: Int) async throws -> [Webhook]
    /// Reads the webhook, lets `change` edit it and stores the result, in one write transaction
    /// (so no concurrent change or acknowledgement is lost); nil when there is no such webhook.
    func modify(id: String, _ change: @escaping @Sendable (inout Webhook) -> Void) async throws -> Webhook?
    /// Deletes a webhook and its delivery log; false when there was none.
    func delete(id: String) async throws -> Bool
    /// Appends `attempt` to the delivery log (unless the webhook was deleted) and, when `cursor`
    /// is set, moves the webhook's cursor forward to it in the same transaction, provided the
    /// webhook's epoch is still `epoch` (no replay since the event was read). Returns whether the cursor moved.
    func record(_ attempt: DeliveryAttempt, cursor: Int64?, epoch: Int64) async throws -> Bool
    /// Deletes all but the newest `keeping` attempts of a webhook.
    func pruneAttempts(webhookId: String, keeping: Int) async throws
    /// The delivery log of a webhook, newest first, with ids below `before`, of one outcome or all.
    func attempts(webhookId: String, outcome: DeliveryAttempt.Outcome?, before: Int64?, limit: Int) async throws -> [DeliveryAttempt]
    /// Claims the webhook's delivery for `owner` (one process) for `lease` from now, or renews
    /// its claim; false while another owner's claim lasts. Where several processes deliver
    /// (PostgreSQL) only the holder sends, so an event is never sent twice at once and per-webhook
    /// order holds. The store's clock decides (the processes' clocks may differ).
    func claim(id: String, owner: String, lease: Duration) async throws -> Bool
}

extension WebhookStore {
    /// One process delivers (SQLite): its claim always holds.
    public func claim(id: String, owner: String, lease: Duration) async throws -> Bool { true }
}

/// An event as a webhook sends it: the body is exactly the event's JSON as the event log lists it.
public struct OutboundEvent: Hashable, Sendable {
    /// Position in the tenant's log.
    public var sequence: Int64
    /// The event id: the `webhook-id` header, stable across retries.
    public var id: String
    public var subscriptionId: String
    /// When the event was stored (the start of its fix-to-receiver latency).
    public var recordedAt: Instant
    /// The request body.
    public var body: [UInt8]

    public init(sequence: Int64, id: String, subscriptionId: String, recordedAt: Instant, body: [UInt8]) {
        self.sequence = sequence
        self.id = id
        self.subscriptionId = subscriptionId
        self.recordedAt = recordedAt
        self.body = body
    }
}

/// The tenant's event log, read the way the SSE stream reads it.
public protocol EventSource: Sendable {
    /// Events after `sequence` in sequence order, of `subscriptionIds` only (nil: all), at most `limit`.
    func events(after sequence: Int64, subscriptionIds: [String]?, limit: Int) async throws -> [OutboundEvent]
    /// How many events after `sequence` belong to `subscriptionIds` (nil: all).
    func count(after sequence: Int64, subscriptionIds: [String]?) async throws -> Int64
    /// The last sequence in the log.
    var latest: Int64 { get }
    /// Returns when the log ends after `sequence`, after `timeout`, or when the task is cancelled.
    func wait(after sequence: Int64, timeout: Duration) async
}
