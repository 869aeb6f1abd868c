import Delivery
import Foundation
import GRDB
import Timeline

/// A row of `webhook`.
struct WebhookRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "webhook"
    static let insertSQL = """
        INSERT INTO webhook (id, tenant, url, subscriptionIds, secret, retiredSecrets, state, disabledReason, cursor, epoch, createdAt, updatedAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let updateSQL = """
        UPDATE webhook SET url = ?, subscriptionIds = ?, secret = ?, retiredSecrets = ?, state = ?, disabledReason = ?,
        cursor = ?, epoch = ?, updatedAt = ? WHERE id = ? AND tenant = ?
        """
    var id: String
    var url: String
    var subscriptionIds: String?
    var secret: String
    var retiredSecrets: String
    var state: String
    var disabledReason: String?
    var cursor: Int64
    var epoch: Int64
    var createdAt: Int64  // Unix microseconds
    var updatedAt: Int64

    /// The columns of `webhook`, in ``insertSQL`` order after id and tenant (``updateSQL`` order up to `updatedAt`).
    static func settings(_ webhook: Webhook) throws -> StatementArguments {
        [
            webhook.url, try webhook.subscriptionIds.map { try JSONColumn.text($0) }, webhook.secrets.current.text,
            try JSONColumn.text(webhook.secrets.retired.map { StoredRetiredSecret(secret: $0.secret.text, expiresAt: $0.expiresAt.microseconds) }),
            webhook.state.rawValue, webhook.disabledReason, webhook.cursor, webhook.epoch,
        ]
    }

    func webhook() throws -> Webhook {
        let retired = try JSONColumn.value([StoredRetiredSecret].self, retiredSecrets, table: Self.databaseTableName, id: id)
        guard let current = WebhookSecret(secret), let state = Webhook.State(rawValue: state) else {
            throw StorageError.corruptRow(table: Self.databaseTableName, id: id)
        }
        let secrets = try retired.map { stored in
            guard let secret = WebhookSecret(stored.secret) else { throw StorageError.corruptRow(table: Self.databaseTableName, id: id) }
            return SigningSecrets.Retired(secret: secret, expiresAt: Instant(microseconds: stored.expiresAt))
        }
        return Webhook(
            id: id, url: url,
            subscriptionIds: try subscriptionIds.map { try JSONColumn.value([String].self, $0, table: Self.databaseTableName, id: id) },
            secrets: SigningSecrets(current: current, retired: secrets),
            state: state, disabledReason: disabledReason, cursor: cursor, epoch: epoch,
            createdAt: Instant(microseconds: createdAt), updatedAt: Instant(microseconds: updatedAt))
    }
}

/// One element of `webhook.retiredSecrets`.
struct StoredRetiredSecret: Codable {
    var secret: String
    var expiresAt: Int64  // Unix microseconds
}

/// A row of `webhookDelivery`: one attempt.
struct WebhookDeliveryRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "webhookDelivery"
    /// Inserts an attempt of a webhook that still exists (an attempt in flight during a deletion leaves no row).
    static let insertSQL = """
        INSERT INTO webhookDelivery (webhookId, sequence, eventId, attempt, at, statusCode, error, latencyMilliseconds, outcome)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM webhook WHERE id = ?1)
        """
    var id: Int64
    var webhookId: String
    var sequence: Int64
    var eventId: String
    var attempt: Int
    var at: Int64
    var statusCode: Int?
    var error: String?
    var latencyMilliseconds: Double
    var outcome: String

    static func arguments(_ attempt: DeliveryAttempt) -> StatementArguments {
        [attempt.webhookId, attempt.sequence, attempt.eventId, attempt.attempt, attempt.at.microseconds, attempt.statusCode, attempt.error,
         attempt.latencyMilliseconds, attempt.outcome.rawValue]
    }

    func deliveryAttempt() throws -> DeliveryAttempt {
        guard let outcome = DeliveryAttempt.Outcome(rawValue: outcome) else { throw StorageError.corruptRow(table: Self.databaseTableName, id: String(id)) }
        return DeliveryAttempt(
            id: id, webhookId: webhookId, sequence: sequence, eventId: eventId, attempt: attempt, at: Instant(microseconds: at),
            statusCode: statusCode, error: error, latencyMilliseconds: latencyMilliseconds, outcome: outcome)
    }
}
