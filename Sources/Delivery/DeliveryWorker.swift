import Foundation
import Synchronization
public import Timeline

/// What every worker of a tenant shares.
public struct DeliveryContext: Sendable {
    public var store: any WebhookStore
    public var events: any EventSource
    public var transport: any WebhookTransport
    public var outbound: OutboundGuard
    public var settings: DeliverySettings
    public var observer: any DeliveryObserver
    public var now: @Sendable () -> Instant
    /// This process, as the owner of webhook claims.
    public var instance: String
    /// Moves when another process changed this tenant's webhooks (nil where only this one does).
    public var changes: SequenceSignal?

    public init(
        store: any WebhookStore, events: any EventSource, transport: any WebhookTransport, settings: DeliverySettings,
        observer: any DeliveryObserver = NoDeliveryObserver(), now: @escaping @Sendable () -> Instant,
        instance: String = "local", changes: SequenceSignal? = nil
    ) {
        self.instance = instance
        self.changes = changes
        self.store = store
        self.events = events
        self.transport = transport
        self.outbound = OutboundGuard(policy: AddressPolicy(allowed: settings.allowed), resolver: transport.resolver)
        self.settings = settings
        self.observer = observer
        self.now = now
    }
}

/// Sends one webhook's events, one request each, in sequence order: an event is sent only once
/// every earlier one was acknowledged or dead-lettered. Reads the log after the committed cursor,
/// so a restart resumes where the last acknowledgement left off (at least once).
final class DeliveryWorker: Sendable {
    let webhookId: String
    private let context: DeliveryContext
    /// Poked when the webhook changed (patch, replay, deletion) or the server stops.
    private let wake = SequenceSignal(latest: 0)
    private let pokes = Atomic<Int64>(0)
    /// Set once the server stops: no new attempt starts; one in flight finishes.
    private let stopping = Atomic<Bool>(false)
    /// Events read ahead per query.
    static let pageSize = 100
    /// The wait before reading the store again after it failed.
    static let storeRetry = Duration.seconds(1)
    /// How long an idle worker waits before it reads its webhook again anyway.
    static let idleWait = Duration.seconds(3_600)
    /// Attempts between two trims of the delivery log.
    static let pruneEvery = 500
    private let recorded = Atomic<Int>(0)

    init(webhookId: String, context: DeliveryContext) {
        self.webhookId = webhookId
        self.context = context
    }

    /// Makes the worker read its webhook again now (and stop waiting or backing off).
    func poke() {
        wake.advance(to: pokes.add(1, ordering: .relaxed).newValue)
    }

    /// Finishes the attempt in flight, if any, and ends ``run()``.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        poke()
    }

    /// Delivers until the webhook is deleted or the worker is stopped.
    func run() async {
        var attempt = Attempt()
        /// The end of a retry's backoff (waited out in turns that keep the claim) and the webhook
        /// as it was when the attempt failed: an operator's change to it (replay, URL, state) ends the wait.
        var retry: (notBefore: ContinuousClock.Instant, webhook: Webhook)?
        let renewal = context.settings.lease / 3
        while true {
            // Read before the stop check: a stop after it pokes past `seen`, so no wait misses it.
            let seen = wake.latest
            guard !isStopped else { return }
            do {
                guard let webhook = try await context.store.webhook(id: webhookId) else { return }
                guard try await claim() else {
                    // Another instance delivers; take over if its claim lapses.
                    await context.events.waitOrWake(wake, after: seen, timeout: renewal, logAfter: nil)
                    continue
                }
                if let (end, failed) = retry {
                    let changed = webhook.epoch != failed.epoch || webhook.url != failed.url || webhook.state != failed.state
                    if !changed, ContinuousClock.now < end {
                        // Alone, the whole wait; beside other instances, turns short enough to keep the claim.
                        let left = end - ContinuousClock.now
                        await context.events.waitOrWake(wake, after: seen, timeout: context.changes == nil ? left : min(left, renewal), logAfter: nil)
                        continue
                    }
                    retry = nil
                }
                guard webhook.state == .active else {
                    await context.events.waitOrWake(wake, after: seen, timeout: idle, logAfter: nil)
                    continue
                }
                let latest = context.events.latest
                let page = try await context.events.events(after: webhook.cursor, subscriptionIds: webhook.subscriptionIds, limit: Self.pageSize)
                if page.isEmpty {
                    await context.events.waitOrWake(wake, after: seen, timeout: idle, logAfter: latest)
                    continue
                }
                var first = true
                pages: for event in page {
                    guard !isStopped, wake.latest == seen else { break pages }
                    // Renewed before every attempt after the first (just claimed): an attempt ends
                    // within the timeout, well inside the lease. Lost (this process stalled past
                    // the lease): another instance delivers.
                    if !first, try await !claim() { break pages }
                    first = false
                    attempt.next(for: event.sequence, epoch: webhook.epoch)
                    switch try await deliver(event, attempt: attempt.count, of: webhook) {
                    case .next: continue
                    case .reload: break pages
                    case .retry(let delay):
                        retry = (ContinuousClock.now + delay, webhook)
                        break pages
                    }
                }
            } catch {
                await context.events.waitOrWake(wake, after: seen, timeout: Self.storeRetry, logAfter: nil)
            }
        }
    }

    /// Claims (or renews the claim on) the webhook for this process, for a lease from now.
    private func claim() async throws -> Bool {
        try await context.store.claim(id: webhookId, owner: context.instance, lease: context.settings.lease)
    }

    /// Which try of which event this is: counted per event and epoch, so a replay starts again at 1.
    private struct Attempt {
        var sequence: Int64 = 0
        var epoch: Int64 = -1
        var count = 0

        mutating func next(for sequence: Int64, epoch: Int64) {
            if (sequence, epoch) != (self.sequence, self.epoch) { (self.sequence, self.epoch, count) = (sequence, epoch, 0) }
            count += 1
        }
    }

    private var isStopped: Bool { stopping.load(ordering: .relaxed) || Task.isCancelled }

    /// How long an idle worker waits: an hour alone, a claim's renewal beside other instances.
    private var idle: Duration { context.changes == nil ? Self.idleWait : context.settings.lease / 3 }

    private enum Step { case next, reload, retry(Duration) }

    /// One attempt at `event`, recorded with its outcome; says what the worker does next.
    private func deliver(_ event: OutboundEvent, attempt: Int, of webhook: Webhook) async throws -> Step {
        let at = context.now()
        let response = await WebhookSender(context: context).send(
            id: event.id, body: event.body, to: webhook.url, secrets: webhook.secrets.signing(at: at), at: at)
        var record = DeliveryAttempt(
            webhookId: webhook.id, sequence: event.sequence, eventId: event.id, attempt: attempt, at: at,
            statusCode: response.statusCode, error: response.error, latencyMilliseconds: response.latencyMilliseconds, outcome: .failed)
        defer { context.observer.attempted(record, eventAge: context.now().seconds(since: event.recordedAt)) }
        try await pruneNow()
        if response.acknowledged {
            record.outcome = .delivered
            return try await context.store.record(record, cursor: event.sequence, epoch: webhook.epoch) ? .next : .reload
        }
        if response.gone {
            _ = try await context.store.record(record, cursor: nil, epoch: webhook.epoch)
            // Only the webhook this answer was for: not one an operator has since re-pointed or replayed.
            let (url, epoch, now) = (webhook.url, webhook.epoch, context.now())
            _ = try await context.store.modify(id: webhook.id) { current in
                guard current.url == url, current.epoch == epoch, current.state == .active else { return }
                (current.state, current.disabledReason, current.updatedAt) = (.disabled, "the receiver answered 410 Gone", now)
            }
            return .reload
        }
        var generator = SystemRandomNumberGenerator()
        guard let delay = context.settings.backoff.delay(afterAttempt: attempt, retryAfter: response.retryAfter, using: &generator) else {
            record.outcome = .dead
            return try await context.store.record(record, cursor: event.sequence, epoch: webhook.epoch) ? .next : .reload
        }
        _ = try await context.store.record(record, cursor: nil, epoch: webhook.epoch)
        return .retry(delay)
    }

    /// Every ``pruneEvery`` attempts, trims the webhook's delivery log to the newest ones kept.
    private func pruneNow() async throws {
        guard recorded.add(1, ordering: .relaxed).newValue % Self.pruneEvery == 0 else { return }
        try await context.store.pruneAttempts(webhookId: webhookId, keeping: context.settings.attemptsKept)
    }
}

extension EventSource {
    /// Waits for whichever comes first: `wake` poked after `seen`, the log growing past `logAfter`
    /// (when given), `timeout`, or cancellation.
    func waitOrWake(_ wake: SequenceSignal, after seen: Int64, timeout: Duration, logAfter: Int64?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wake.wait(after: seen, timeout: timeout) }
            if let logAfter { group.addTask { await self.wait(after: logAfter, timeout: timeout) } }
            await group.next()
            group.cancelAll()
        }
    }
}
