public import Timeline

/// One try at sending one event to one webhook, as `GET /v1/webhooks/{id}/deliveries` lists it.
public struct DeliveryAttempt: Hashable, Sendable {
    /// What came of it.
    public enum Outcome: String, Hashable, Sendable, CaseIterable {
        /// The receiver answered 2xx: the cursor moved past the event.
        case delivered
        /// Not acknowledged; the event is tried again.
        case failed
        /// The last attempt failed: the event is dead-lettered and delivery goes on with the next.
        case dead
    }

    /// Position in the webhook's delivery log (ascending; assigned by the store).
    public var id: Int64
    public var webhookId: String
    /// The event's sequence in the tenant's log.
    public var sequence: Int64
    /// The event id, sent as `webhook-id`.
    public var eventId: String
    /// 1 for the first try of this event (since the last restart or replay).
    public var attempt: Int
    /// When the request was sent.
    public var at: Instant
    /// The receiver's status code; nil when no answer came (refused connection, timeout).
    public var statusCode: Int?
    /// Why it failed, when it did: the status, or the transport's error.
    public var error: String?
    /// From sending the request to the end of the answer (or the failure), in milliseconds.
    public var latencyMilliseconds: Double
    public var outcome: Outcome

    public init(
        id: Int64 = 0, webhookId: String, sequence: Int64, eventId: String, attempt: Int, at: Instant,
        statusCode: Int?, error: String?, latencyMilliseconds: Double, outcome: Outcome
    ) {
        self.id = id
        self.webhookId = webhookId
        self.sequence = sequence
        self.eventId = eventId
        self.attempt = attempt
        self.at = at
        self.statusCode = statusCode
        self.error = error
        self.latencyMilliseconds = latencyMilliseconds
        self.outcome = outcome
    }
}
