import MeridianHTTP
import Delivery
import Foundation
import MeridianAPI
import OpenAPIRuntime
import Timeline
import Tracking

// Webhooks: create, read, list, change, delete; the delivery log, replay and a test ping.

extension APIHandler {
    /// The caller's webhooks.
    var delivery: DeliveryHub { get async throws { try await tenants.current().delivery } }

    func createWebhook(_ input: Operations.CreateWebhook.Input) async throws -> Operations.CreateWebhook.Output {
        let body = switch input.body { case .json(let body): body }
        let secret = try body.secret.map { try Self.secret($0) }
        let subscriptionIds = try await existingSubscriptions(body.subscriptionIds)
        let hub = try await delivery
        let webhook = try await hub.create(url: body.url, secret: secret, subscriptionIds: subscriptionIds)
        return .created(.init(headers: .init(location: "/v1/webhooks/\(webhook.id)"),
                              body: .json(try await wire(webhook, hub: hub, secret: webhook.secrets.current))))
    }

    func listWebhooks(_ input: Operations.ListWebhooks.Input) async throws -> Operations.ListWebhooks.Output {
        let limit = try Paging.limit(input.query.limit)
        let hub = try await delivery
        let page = try await hub.context.store.webhooks(after: input.query.cursor, limit: limit + 1)
        var webhooks: [Components.Schemas.Webhook] = []
        for webhook in page.prefix(limit) { webhooks.append(try await wire(webhook, hub: hub)) }
        return .ok(.init(body: .json(.init(webhooks: webhooks, nextCursor: page.count > limit ? webhooks.last?.id : nil))))
    }

    func getWebhook(_ input: Operations.GetWebhook.Input) async throws -> Operations.GetWebhook.Output {
        let hub = try await delivery
        return .ok(.init(body: .json(try await wire(try await hub.webhook(input.path.webhookId), hub: hub))))
    }

    func updateWebhook(_ input: Operations.UpdateWebhook.Input) async throws -> Operations.UpdateWebhook.Output {
        let body = switch input.body {
        case .applicationMergePatchJson(let body): body
        case .json(let body): body
        }
        var change = WebhookChange(url: body.url, secret: try body.secret.map { try Self.secret($0) })
        if body.nulls.contains("subscriptionIds") {
            change.subscriptionIds = .some(nil)
        } else if let ids = body.subscriptionIds {
            change.subscriptionIds = .some(try await existingSubscriptions(ids))
        }
        change.state = body.state.map { $0 == .active ? .active : .disabled }
        let hub = try await delivery
        return .ok(.init(body: .json(try await wire(try await hub.update(input.path.webhookId, change: change), hub: hub))))
    }

    func deleteWebhook(_ input: Operations.DeleteWebhook.Input) async throws -> Operations.DeleteWebhook.Output {
        try await delivery.delete(input.path.webhookId)
        return .noContent(.init())
    }

    func listWebhookDeliveries(_ input: Operations.ListWebhookDeliveries.Input) async throws -> Operations.ListWebhookDeliveries.Output {
        let limit = try Paging.limit(input.query.limit)
        let before = try input.query.cursor.map { try Paging.count($0, parameter: "cursor") }
        let hub = try await delivery
        let webhook = try await hub.webhook(input.path.webhookId)
        let outcome = input.query.status.flatMap { DeliveryAttempt.Outcome(rawValue: $0.rawValue) }
        let page = try await hub.context.store.attempts(webhookId: webhook.id, outcome: outcome, before: before, limit: limit + 1)
        let attempts = page.prefix(limit)
        return .ok(.init(body: .json(.init(
            deliveries: attempts.map(Components.Schemas.DeliveryAttempt.init),
            nextCursor: page.count > limit ? attempts.last.map { String($0.id) } : nil))))
    }

    func replayWebhook(_ input: Operations.ReplayWebhook.Input) async throws -> Operations.ReplayWebhook.Output {
        let body = switch input.body { case .json(let body): body }
        guard body.fromSequence >= 1 else { throw ProblemError.invalid(pointer: "/fromSequence", "must be 1 or more, got \(body.fromSequence)") }
        // From before what retention kept: 410 (1, the whole log, is what is kept).
        try await tracking.checkCursor(body.fromSequence - 1)
        let hub = try await delivery
        let webhook = try await hub.replay(input.path.webhookId, fromSequence: body.fromSequence)
        return .accepted(.init(body: .json(try await wire(webhook, hub: hub))))
    }

    func testWebhook(_ input: Operations.TestWebhook.Input) async throws -> Operations.TestWebhook.Output {
        .ok(.init(body: .json(.init(try await delivery.ping(input.path.webhookId)))))
    }

    /// The webhook as answers show it, with its lag now.
    private func wire(_ webhook: Webhook, hub: DeliveryHub, secret: WebhookSecret? = nil) async throws -> Components.Schemas.Webhook {
        .init(webhook, lag: try await hub.lag(of: webhook), secret: secret, now: hub.context.now())
    }

    /// `ids` when each names a live subscription of the caller's; 422 pointing at each one that does not.
    private func existingSubscriptions(_ ids: [String]?) async throws -> [String]? {
        guard let ids else { return nil }
        let live = try await tracking.tracker.read { state in Set(state.subscriptions.values.filter { $0.deletedAt == nil }.map(\.id)) }
        let unknown = ids.enumerated().filter { !live.contains($0.element) }
        guard unknown.isEmpty else {
            throw ProblemError.invalid(unknown.map { .init(pointer: "/subscriptionIds/\($0.offset)", detail: "names no live subscription (\($0.element))") })
        }
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// A secret the contract's pattern admits (`whsec_` + base64 of 24–64 bytes).
    private static func secret(_ text: String) throws -> WebhookSecret {
        guard let secret = WebhookSecret(text) else {
            throw ProblemError.invalid(pointer: "/secret", "must be whsec_ followed by the base64 of 24 to 64 bytes")
        }
        return secret
    }
}
