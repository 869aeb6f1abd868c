public import Delivery
import Foundation
import Logging
import PostgresNIO
public import Timeline

/// ``WebhookStore`` on PostgreSQL, confined to one tenant. Several instances run a worker per
/// webhook; only the holder of the webhook's claim sends (``claim(id:owner:until:now:)``, taken
/// with `FOR UPDATE SKIP LOCKED`: two instances claiming at once do not wait for each other, one
/// gets it). Every change to a webhook bumps the tenant's `webhooks` counter and notifies, so the
/// other instances read it again at once.
public struct PostgresWebhookStore: WebhookStore {
    let database: PostgresDatabase
    public let tenant: TenantID
    var logger: Logger { database.logger }

    static let changeFeed = "webhooks"

    public init(database: PostgresDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
    }

    /// Moves when any instance changed this tenant's webhooks.
    public var changes: SequenceSignal { database.feeds.signal(Self.changeFeed, tenant) }

    static let columns = """
        id, url, subscription_ids, secret, retired_secrets, state, disabled_reason, cursor, epoch, created_at, updated_at
        """
    typealias Columns = (String, String, String?, String, String, String, String?, Int64, Int64, Int64, Int64)

    public func insert(_ webhook: Webhook) async throws {
        let (subscriptions, retired) = try Self.encoded(webhook)
        try await changing { connection in
            try await connection.query("""
                INSERT INTO webhook (tenant, id, url, subscription_ids, secret, retired_secrets, state, disabled_reason, cursor, epoch, created_at, updated_at)
                VALUES (\(tenant.description), \(webhook.id), \(webhook.url), \(subscriptions), \(webhook.secrets.current.text), \(retired),
                        \(webhook.state.rawValue), \(webhook.disabledReason), \(webhook.cursor), \(webhook.epoch),
                        \(webhook.createdAt.microseconds), \(webhook.updatedAt.microseconds))
                """, logger: logger)
            return true
        }
    }

    public func webhook(id: String) async throws -> Webhook? {
        guard PostgresText.holds(id) else { return nil }
        return try await read(try await database.client.query("""
            SELECT \(unescaped: Self.columns) FROM webhook WHERE tenant = \(tenant.description) AND id = \(id)
            """, logger: logger)).first
    }

    public func webhooks(after: String?, limit: Int) async throws -> [Webhook] {
        try await read(try await database.client.query("""
            SELECT \(unescaped: Self.columns) FROM webhook WHERE tenant = \(tenant.description) AND id > \(after ?? "") ORDER BY id LIMIT \(limit)
            """, logger: logger))
    }

    public func modify(id: String, _ change: @escaping @Sendable (inout Webhook) -> Void) async throws -> Webhook? {
        guard PostgresText.holds(id) else { return nil }
        return try await changing { connection -> Webhook? in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.columns) FROM webhook WHERE tenant = \(tenant.description) AND id = \(id) FOR UPDATE
                """, logger: logger)
            var found: Webhook?
            for try await row in rows.decode(Columns.self) { found = try Self.webhook(row) }
            guard var webhook = found else { return nil }
            change(&webhook)
            let (subscriptions, retired) = try Self.encoded(webhook)
            try await connection.query("""
                UPDATE webhook SET url = \(webhook.url), subscription_ids = \(subscriptions), secret = \(webhook.secrets.current.text),
                    retired_secrets = \(retired), state = \(webhook.state.rawValue), disabled_reason = \(webhook.disabledReason),
                    cursor = \(webhook.cursor), epoch = \(webhook.epoch), updated_at = \(webhook.updatedAt.microseconds)
                WHERE tenant = \(tenant.description) AND id = \(id)
                """, logger: logger)
            return webhook
        }
    }

    public func delete(id: String) async throws -> Bool {
        guard PostgresText.holds(id) else { return false }
        return try await changing { connection in
            var deleted = false
            for try await _ in try await connection.query("""
                DELETE FROM webhook WHERE tenant = \(tenant.description) AND id = \(id) RETURNING id
                """, logger: logger) { deleted = true }
            guard deleted else { return false }
            try await connection.query("""
                DELETE FROM webhook_delivery WHERE tenant = \(tenant.description) AND webhook_id = \(id)
                """, logger: logger)
            return true
        }
    }

    public func record(_ attempt: DeliveryAttempt, cursor: Int64?, epoch: Int64) async throws -> Bool {
        try await database.transaction { connection in
            // An attempt in flight during a deletion leaves no row.
            try await connection.query("""
                INSERT INTO webhook_delivery (tenant, webhook_id, sequence, event_id, attempt, at, status_code, error, latency_milliseconds, outcome)
                SELECT \(tenant.description), \(attempt.webhookId), \(attempt.sequence), \(attempt.eventId), \(attempt.attempt),
                       \(attempt.at.microseconds), \(attempt.statusCode), \(attempt.error), \(attempt.latencyMilliseconds), \(attempt.outcome.rawValue)
                WHERE EXISTS (SELECT 1 FROM webhook WHERE tenant = \(tenant.description) AND id = \(attempt.webhookId))
                """, logger: logger)
            guard let cursor else { return false }
            var moved = false
            for try await _ in try await connection.query("""
                UPDATE webhook SET cursor = \(cursor)
                WHERE tenant = \(tenant.description) AND id = \(attempt.webhookId) AND epoch = \(epoch) AND cursor < \(cursor) RETURNING id
                """, logger: logger) { moved = true }
            return moved
        }
    }

    public func pruneAttempts(webhookId: String, keeping: Int) async throws {
        try await database.client.query("""
            DELETE FROM webhook_delivery WHERE tenant = \(tenant.description) AND webhook_id = \(webhookId) AND id <= (
                SELECT id FROM webhook_delivery WHERE tenant = \(tenant.description) AND webhook_id = \(webhookId)
                ORDER BY id DESC LIMIT 1 OFFSET \(keeping))
            """, logger: logger)
    }

    public func attempts(webhookId: String, outcome: DeliveryAttempt.Outcome?, before: Int64?, limit: Int) async throws -> [DeliveryAttempt] {
        guard PostgresText.holds(webhookId) else { return [] }
        let rows = try await database.client.query("""
            SELECT id, sequence, event_id, attempt, at, status_code, error, latency_milliseconds, outcome FROM webhook_delivery
            WHERE tenant = \(tenant.description) AND webhook_id = \(webhookId) AND (\(outcome?.rawValue)::text IS NULL OR outcome = \(outcome?.rawValue))
              AND id < \(before ?? Int64.max)
            ORDER BY id DESC LIMIT \(limit)
            """, logger: logger)
        var attempts: [DeliveryAttempt] = []
        for try await (id, sequence, eventId, attempt, at, status, error, latency, outcome) in rows.decode(
            (Int64, Int64, String, Int, Int64, Int?, String?, Double, String).self) {
            guard let outcome = DeliveryAttempt.Outcome(rawValue: outcome) else { throw StorageError.corruptRow(table: "webhook_delivery", id: String(id)) }
            attempts.append(DeliveryAttempt(
                id: id, webhookId: webhookId, sequence: sequence, eventId: eventId, attempt: attempt, at: Instant(microseconds: at),
                statusCode: status, error: error, latencyMilliseconds: latency, outcome: outcome))
        }
        return attempts
    }

    public func claim(id: String, owner: String, lease: Duration) async throws -> Bool {
        guard PostgresText.holds(id) else { return false }
        let now = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint"
        let rows = try await database.client.query("""
            UPDATE webhook SET lease_owner = \(owner), lease_until = \(unescaped: now) + \(Int64(lease / .microseconds(1)))
            WHERE (tenant, id) IN (
                SELECT tenant, id FROM webhook
                WHERE tenant = \(tenant.description) AND id = \(id)
                  AND (lease_owner IS NULL OR lease_owner = \(owner) OR lease_until < \(unescaped: now))
                FOR UPDATE SKIP LOCKED)
            RETURNING id
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    /// A write in one transaction that bumps the `webhooks` counter and notifies, when `body` says it changed something.
    private func changing<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T?) async throws -> T? {
        let (result, last) = try await database.transaction { connection -> (T?, Int64?) in
            var counter = try await FeedAppender.lock(Self.changeFeed, tenant, on: connection, logger: logger)
            guard let result = try await body(connection) else { return (nil, nil) }
            _ = counter.next()
            return (result, try await counter.finish(on: connection, logger: logger))
        }
        if let last { changes.advance(to: last) }
        return result
    }

    private func changing(_ body: @escaping @Sendable (PostgresConnection) async throws -> Bool) async throws -> Bool {
        try await changing { connection -> Bool? in try await body(connection) ? true : nil } ?? false
    }

    private func read(_ rows: PostgresRowSequence) async throws -> [Webhook] {
        var webhooks: [Webhook] = []
        for try await row in rows.decode(Columns.self) { webhooks.append(try Self.webhook(row)) }
        return webhooks
    }

    static func encoded(_ webhook: Webhook) throws -> (subscriptions: String?, retired: String) {
        (try webhook.subscriptionIds.map { try JSONColumn.text($0) },
         try JSONColumn.text(webhook.secrets.retired.map { StoredRetiredSecret(secret: $0.secret.text, expiresAt: $0.expiresAt.microseconds) }))
    }

    static func webhook(_ row: Columns) throws -> Webhook {
        let (id, url, subscriptionIds, secret, retiredSecrets, state, disabledReason, cursor, epoch, createdAt, updatedAt) = row
        let retired = try JSONColumn.value([StoredRetiredSecret].self, retiredSecrets, table: "webhook", id: id)
        guard let current = WebhookSecret(secret), let state = Webhook.State(rawValue: state) else { throw StorageError.corruptRow(table: "webhook", id: id) }
        let secrets = try retired.map { stored in
            guard let secret = WebhookSecret(stored.secret) else { throw StorageError.corruptRow(table: "webhook", id: id) }
            return SigningSecrets.Retired(secret: secret, expiresAt: Instant(microseconds: stored.expiresAt))
        }
        return Webhook(
            id: id, url: url, subscriptionIds: try subscriptionIds.map { try JSONColumn.value([String].self, $0, table: "webhook", id: id) },
            secrets: SigningSecrets(current: current, retired: secrets), state: state, disabledReason: disabledReason,
            cursor: cursor, epoch: epoch, createdAt: Instant(microseconds: createdAt), updatedAt: Instant(microseconds: updatedAt))
    }
}
