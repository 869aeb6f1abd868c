import MeridianHTTP
import Delivery
import MeridianAPI
import Timeline

extension Components.Schemas.Webhook {
    /// The webhook as answers show it; `secret` only when the caller may see it (creation).
    init(_ webhook: Webhook, lag: (events: Int64, oldestAge: Double?), secret: WebhookSecret? = nil, now: Instant) {
        self.init(
            id: webhook.id, url: webhook.url, subscriptionIds: webhook.subscriptionIds, secret: secret?.text,
            state: webhook.state == .active ? .active : .disabled, disabledReason: webhook.disabledReason, cursor: webhook.cursor,
            lag: .init(events: lag.events, oldestAge: lag.oldestAge),
            previousSecretExpiresAt: webhook.secrets.overlapEnds(at: now)?.rfc3339,
            createdAt: webhook.createdAt.rfc3339, updatedAt: webhook.updatedAt.rfc3339)
    }
}

extension Components.Schemas.DeliveryAttempt {
    init(_ attempt: DeliveryAttempt) {
        self.init(
            id: attempt.id, sequence: attempt.sequence, eventId: attempt.eventId, attempt: attempt.attempt, at: attempt.at.rfc3339,
            statusCode: attempt.statusCode, error: attempt.error, latencyMilliseconds: attempt.latencyMilliseconds,
            status: .init(rawValue: attempt.outcome.rawValue) ?? .failed)
    }
}

extension Components.Schemas.WebhookTestResult {
    init(_ response: WebhookResponse) {
        self.init(delivered: response.acknowledged, statusCode: response.statusCode, error: response.error, latencyMilliseconds: response.latencyMilliseconds)
    }
}
