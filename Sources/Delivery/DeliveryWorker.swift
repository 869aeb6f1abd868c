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

    public init(
        store: any WebhookStore, events: any EventSource, transport: any WebhookTransport, settings: DeliverySettings,
        observer: any DeliveryObserver = NoDeliveryObserver(), now: @escaping @Sendable () -> Instant
    ) {
        self.store = store
        self.events = events
        self.transport = transport
        self.outbound = OutboundGuard(policy: AddressPolicy(allowed: settings.allowed))
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
        var attempt = (sequence: Int64(0), count: 0)
        while !isStopped {
            let seen = wake.latest
            do {
                guard let webhook = try await context.store.webhook(id: webhookId) else { return }
                guard webhook.state == .active else {
                    await context.events.waitOrWake(wake, after: seen, timeout: .seconds(3_600), logAfter: nil)
                    continue
                }
                let latest = context.events.latest
                let page = try await context.events.events(after: webhook.cursor, subscriptionIds: webhook.subscriptionIds, limit: Self.pageSize)
                if page.isEmpty {
                    await context.events.waitOrWake(wake, after: seen, timeout: .seconds(3_600), logAfter: latest)
                    continue
                }
                pages: for event in page {
                    guard !isStopped, wake.latest == seen else { break pages }
                    if attempt.sequence != event.sequence { attempt = (event.sequence, 0) }
                    attempt.count += 1
                    switch try await deliver(event, attempt: attempt.count, of: webhook) {
                    case .next: continue
                    case .reload: break pages
                    case .retry(let delay):
                        await context.events.waitOrWake(wake, after: seen, timeout: delay, logAfter: nil)
                        break pages
                    }
                }
            } catch {
                await context.events.waitOrWake(wake, after: seen, timeout: Self.storeRetry, logAfter: nil)
            }
        }
    }

    private var isStopped: Bool { stopping.load(ordering: .relaxed) || Task.isCancelled }

    private enum Step { case next, reload, retry(Duration) }

    /// One attempt at `event`, recorded with its outcome; says what the worker does next.
    private func deliver(_ event: OutboundEvent, attempt: Int, of webhook: Webhook) async throws -> Step {
        let at = context.now()
        let response = await WebhookSender(context: context).send(
            id: event.id, body: event.body, to: webhook.url, secrets: webhook.secrets.signing(at: at), at: at)
        var record = DeliveryAttempt(
            webhookId: webhook.id, sequence: event.sequence, eventId: event.id, attempt: attempt, at: at,
            statusCode: response.statusCode, error: response.failure, latencyMilliseconds: response.latency.milliseconds, outcome: .failed)
        defer { context.observer.attempted(record, eventAge: context.now().seconds(since: event.recordedAt)) }
        if response.acknowledged {
            record.outcome = .delivered
            return try await context.store.record(record, cursor: event.sequence, epoch: webhook.epoch) ? .next : .reload
        }
        if response.gone {
            _ = try await context.store.record(record, cursor: nil, epoch: webhook.epoch)
            try await context.store.setState(webhookId: webhook.id, .disabled, reason: "the receiver answered 410 Gone", at: context.now())
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

extension Duration {
    /// Whole and fractional milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}
