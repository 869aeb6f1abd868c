/// How webhooks are sent, with the defaults `meridian serve` uses.
///
/// | key | default | meaning |
/// | --- | --- | --- |
/// | `backoff` | 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h | waits between attempts (full jitter) |
/// | `timeout` | 10 s | one attempt's whole exchange |
/// | `allowed` | none | address ranges webhooks may reach although private or loopback |
/// | `lease` | 30 s | how long a webhook's claim lasts when several instances deliver (renewed at a third of it) |
public struct DeliverySettings: Sendable {
    /// Waits between attempts; after the last the event is dead-lettered.
    public var backoff: BackoffSchedule
    /// How long one attempt may take, connect to last byte.
    public var timeout: Duration
    /// Ranges exempt from the SSRF guard (tests, private deployments).
    public var allowed: [CIDR]
    /// Delivery log rows kept per webhook; older ones are pruned.
    public var attemptsKept: Int
    /// How long an instance's claim on a webhook lasts (``WebhookStore/claim(id:owner:until:now:)``):
    /// longer than one attempt (`timeout`), so a live holder renews it before it lapses; a holder
    /// that died is replaced within it.
    public var lease: Duration = .seconds(30)

    public init(backoff: BackoffSchedule = .standard, timeout: Duration = .seconds(10), allowed: [CIDR] = [], attemptsKept: Int = 10_000) {
        self.backoff = backoff
        self.timeout = timeout
        self.allowed = allowed
        self.attemptsKept = attemptsKept
    }
}

/// What delivery reports as it works (the server turns it into Prometheus metrics).
public protocol DeliveryObserver: Sendable {
    /// An attempt ended; `eventAge` is from the event's recording to the answer (seconds).
    func attempted(_ attempt: DeliveryAttempt, eventAge: Double)
}

/// An observer that notices nothing.
public struct NoDeliveryObserver: DeliveryObserver {
    public init() {}
    public func attempted(_ attempt: DeliveryAttempt, eventAge: Double) {}
}
