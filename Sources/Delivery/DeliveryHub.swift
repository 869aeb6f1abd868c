import Synchronization
public import Timeline

/// One tenant's webhooks: the use cases behind `/v1/webhooks` and a worker per webhook.
public final class DeliveryHub: Sendable {
    public let context: DeliveryContext
    private let newID: @Sendable () -> String
    private struct Running { let worker: DeliveryWorker; let task: Task<Void, Never> }
    private struct State { var running: [String: Running] = [:]; var stopped = false; var following: Task<Void, Never>? }
    private let state = Mutex(State())
    /// Creations one at a time, so two at once cannot both pass ``maximumPerTenant``.
    private let creating = AsyncGate()

    /// Most webhooks a tenant may have (each has a worker and, on `/metrics`, a lag per webhook);
    /// creating one more is refused with ``WebhookError/limitReached(_:)`` until one is deleted.
    public static let maximumPerTenant = 100

    /// A hub over `context`, naming webhooks with `newID` (UUIDv7).
    public init(context: DeliveryContext, newID: @escaping @Sendable () -> String) {
        self.context = context
        self.newID = newID
    }

    /// Webhooks read per page when the workers start.
    static let startPageSize = 500

    /// Starts a worker for every stored webhook (a restart resumes from the committed cursors);
    /// beside other instances, follows their changes too.
    public func start() async throws {
        try await startWorkers()
        guard let changes = context.changes else { return }
        state.withLock { state in
            guard state.following == nil, !state.stopped else { return }
            state.following = Task { [weak self] in await self?.follow(changes) }
        }
    }

    /// Another instance created, changed or deleted a webhook: start the workers this one lacks
    /// and poke every one (each reads its webhook again). Also every claim's renewal, so a webhook
    /// whose instance died is taken over.
    private func follow(_ changes: SequenceSignal) async {
        var seen = changes.latest
        while !Task.isCancelled {
            await changes.wait(after: seen, timeout: context.settings.lease / 3)
            let moved = changes.latest > seen
            seen = changes.latest
            try? await startWorkers()
            // Only after a change: a poke also ends a retry's backoff.
            if moved { for entry in state.withLock({ Array($0.running.values) }) { entry.worker.poke() } }
        }
    }

    private func startWorkers() async throws {
        var after: String?
        while true {
            let page = try await context.store.webhooks(after: after, limit: Self.startPageSize)
            for webhook in page { wake(webhook.id) }
            guard let last = page.last, page.count == Self.startPageSize else { return }
            after = last.id
        }
    }

    /// Stops every worker, letting an attempt in flight finish (within ``DeliverySettings/timeout``,
    /// which bounds a whole attempt), and waits for them (the transport, which tenants share, stays open).
    public func stop() async {
        let running = state.withLock { state in
            state.stopped = true
            state.following?.cancel()
            return Array(state.running.values)
        }
        for entry in running { entry.worker.stop() }
        for entry in running { await entry.task.value }
    }

    /// A new webhook, active, its cursor at the end of the log (it receives events logged from now on);
    /// ``WebhookError/limitReached(_:)`` when the tenant already has ``maximumPerTenant``.
    public func create(url: String, secret: WebhookSecret?, subscriptionIds: [String]?) async throws -> Webhook {
        _ = try await check(url)
        let webhook = try await creating.run {
            let existing = try await context.store.webhooks(after: nil, limit: Self.maximumPerTenant)
            guard existing.count < Self.maximumPerTenant else { throw WebhookError.limitReached(Self.maximumPerTenant) }
            let now = context.now()
            let webhook = Webhook(
                id: newID(), url: url, subscriptionIds: subscriptionIds, secrets: SigningSecrets(current: secret ?? .generate()),
                cursor: context.events.latest, createdAt: now, updatedAt: now)
            try await context.store.insert(webhook)
            return webhook
        }
        wake(webhook.id)
        return webhook
    }

    /// The webhook with `id`.
    public func webhook(_ id: String) async throws -> Webhook {
        guard let webhook = try await context.store.webhook(id: id) else { throw WebhookError.notFound(id) }
        return webhook
    }

    /// Changes what `change` sets; a new secret rotates (the old one signs too for a day),
    /// `active` clears the reason it was disabled. Cursor and epoch are left as they are.
    public func update(_ id: String, change: WebhookChange) async throws -> Webhook {
        if let url = change.url { _ = try await check(url) }
        let now = context.now()
        return try await modify(id) { webhook in
            if let url = change.url { webhook.url = url }
            if let secret = change.secret { webhook.secrets = webhook.secrets.rotated(to: secret, at: now) }
            if let subscriptionIds = change.subscriptionIds { webhook.subscriptionIds = subscriptionIds }
            if let state = change.state, state != webhook.state {
                webhook.state = state
                webhook.disabledReason = state == .disabled ? "disabled by an operator" : nil
            }
            webhook.updatedAt = now
        }
    }

    /// Deletes the webhook and its delivery log; its worker ends.
    public func delete(_ id: String) async throws {
        guard try await context.store.delete(id: id) else { throw WebhookError.notFound(id) }
        wake(id)
    }

    /// Moves the cursor back so the events with sequence ≥ `fromSequence` are sent again, in order
    /// (a `fromSequence` past the log's end puts the cursor at the end), and starts a new epoch so
    /// an attempt in flight cannot move the cursor forward again.
    public func replay(_ id: String, fromSequence: Int64) async throws -> Webhook {
        // Past the end of the log there is nothing to re-send, and later events must still go out.
        let cursor = max(0, min(fromSequence - 1, context.events.latest))
        let now = context.now()
        return try await modify(id) { webhook in
            webhook.cursor = cursor
            webhook.epoch += 1
            webhook.updatedAt = now
        }
    }

    /// Sends a signed ping now (whatever the state), not logged: `{"type":"ping","webhookId":…,"sentAt":…}`.
    public func ping(_ id: String) async throws -> WebhookResponse {
        let webhook = try await webhook(id)
        let at = context.now()
        let body = #"{"sentAt":"\#(at.rfc3339)","type":"ping","webhookId":"\#(webhook.id)"}"#
        return await WebhookSender(context: context).send(id: "ping_" + newID(), body: Array(body.utf8), to: webhook.url, secrets: webhook.secrets.signing(at: at), at: at)
    }

    /// How far behind the webhook is: events after its cursor, and the age of the oldest (seconds).
    public func lag(of webhook: Webhook) async throws -> (events: Int64, oldestAge: Double?) {
        let events = try await context.events.count(after: webhook.cursor, subscriptionIds: webhook.subscriptionIds)
        guard events > 0, let oldest = try await context.events.events(after: webhook.cursor, subscriptionIds: webhook.subscriptionIds, limit: 1).first else {
            return (0, nil)
        }
        return (events, max(0, context.now().seconds(since: oldest.recordedAt)))
    }

    /// Changes the stored webhook atomically, then wakes its worker.
    private func modify(_ id: String, _ change: @escaping @Sendable (inout Webhook) -> Void) async throws -> Webhook {
        guard let webhook = try await context.store.modify(id: id, change) else { throw WebhookError.notFound(id) }
        wake(id)
        return webhook
    }

    /// Checks `url` as a send would: parsed, resolved, every address allowed.
    private func check(_ url: String) async throws(WebhookError) -> IPAddress {
        do throws(WebhookURLError) {
            return try await context.outbound.check(try WebhookURL(url))
        } catch {
            throw .url(error)
        }
    }

    /// Pokes the webhook's worker, starting one when none runs.
    private func wake(_ id: String) {
        state.withLock { state in
            if let running = state.running[id] { return running.worker.poke() }
            guard !state.stopped else { return }
            let worker = DeliveryWorker(webhookId: id, context: context)
            let task = Task { [weak self] in
                await worker.run()
                self?.state.withLock { state in
                    if state.running[id]?.worker === worker { state.running[id] = nil }
                }
            }
            state.running[id] = Running(worker: worker, task: task)
        }
    }
}

/// What `PATCH /v1/webhooks/{id}` may change; nil leaves a field as it is.
public struct WebhookChange: Sendable {
    public var url: String?
    public var secret: WebhookSecret?
    /// `.some(nil)`: every subscription.
    public var subscriptionIds: [String]??
    public var state: Webhook.State?

    public init(url: String? = nil, secret: WebhookSecret? = nil, subscriptionIds: [String]?? = nil, state: Webhook.State? = nil) {
        self.url = url
        self.secret = secret
        self.subscriptionIds = subscriptionIds
        self.state = state
    }
}

/// Why a webhook request cannot be done (HTTP-free; the server maps each to a problem).
public enum WebhookError: Error, Hashable, Sendable {
    case notFound(String)
    case url(WebhookURLError)
    /// The tenant has this many webhooks, the most it may have (``DeliveryHub/maximumPerTenant``).
    case limitReached(Int)
}
