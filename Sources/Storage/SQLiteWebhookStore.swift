public import Delivery
import GRDB
public import Timeline

/// ``WebhookStore`` on SQLite, confined to one tenant. The delivery log keeps the newest
/// `attemptsKept` attempts of each webhook.
public struct SQLiteWebhookStore: WebhookStore {
    let database: MeridianDatabase
    public let tenant: TenantID
    let attemptsKept: Int
    /// The log is pruned when an attempt's id is a multiple of this.
    static let pruneEvery: Int64 = 1_000

    public init(database: MeridianDatabase, tenant: TenantID = .default, attemptsKept: Int = 10_000) {
        self.database = database
        self.tenant = tenant
        self.attemptsKept = attemptsKept
    }

    public func insert(_ webhook: Webhook) async throws {
        let arguments: StatementArguments = [webhook.id, tenant.description] + (try WebhookRecord.settings(webhook)) + [webhook.createdAt.microseconds, webhook.updatedAt.microseconds]
        try await database.writer.write { db in
            try db.execute(sql: WebhookRecord.insertSQL, arguments: arguments)
        }
    }

    public func webhook(id: String) async throws -> Webhook? {
        try await database.writer.read { db in
            try WebhookRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM webhook WHERE id = ? AND tenant = ?"), arguments: [id, tenant.description])?.webhook()
        }
    }

    public func webhooks(after: String?, limit: Int) async throws -> [Webhook] {
        try await database.writer.read { db in
            try WebhookRecord.fetchAll(db, sql: "SELECT * FROM webhook WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?", arguments: [tenant.description, after ?? "", limit])
                .map { try $0.webhook() }
        }
    }

    public func update(_ webhook: Webhook) async throws -> Bool {
        let arguments: StatementArguments = (try WebhookRecord.settings(webhook)) + [webhook.updatedAt.microseconds, webhook.id, tenant.description]
        return try await database.writer.write { db in
            try db.execute(sql: WebhookRecord.updateSQL, arguments: arguments)
            return db.changesCount > 0
        }
    }

    public func delete(id: String) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM webhook WHERE id = ? AND tenant = ?", arguments: [id, tenant.description])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM webhookDelivery WHERE webhookId = ?", arguments: [id])
            return true
        }
    }

    public func record(_ attempt: DeliveryAttempt, cursor: Int64?, epoch: Int64) async throws -> Bool {
        let (kept, tenant) = (attemptsKept, tenant.description)
        return try await database.writer.write { db in
            try db.cachedStatement(sql: WebhookDeliveryRecord.insertSQL).execute(arguments: WebhookDeliveryRecord.arguments(attempt))
            if db.lastInsertedRowID % Self.pruneEvery == 0 {
                try db.execute(sql: """
                    DELETE FROM webhookDelivery WHERE webhookId = ?1 AND id <= (SELECT id FROM webhookDelivery WHERE webhookId = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                    """, arguments: [attempt.webhookId, kept])
            }
            guard let cursor else { return false }
            try db.cachedStatement(sql: "UPDATE webhook SET cursor = ? WHERE id = ? AND tenant = ? AND epoch = ? AND cursor < ?")
                .execute(arguments: [cursor, attempt.webhookId, tenant, epoch, cursor])
            return db.changesCount > 0
        }
    }

    public func setState(webhookId: String, _ state: Webhook.State, reason: String?, at: Instant) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE webhook SET state = ?, disabledReason = ?, updatedAt = ? WHERE id = ? AND tenant = ?",
                           arguments: [state.rawValue, reason, at.microseconds, webhookId, tenant.description])
        }
    }

    public func attempts(webhookId: String, outcome: DeliveryAttempt.Outcome?, before: Int64?, limit: Int) async throws -> [DeliveryAttempt] {
        try await database.writer.read { db in
            try WebhookDeliveryRecord.fetchAll(db, sql: """
                SELECT d.* FROM webhookDelivery d JOIN webhook w ON w.id = d.webhookId
                WHERE d.webhookId = ? AND w.tenant = ? AND (?3 IS NULL OR d.outcome = ?3) AND d.id < ? ORDER BY d.id DESC LIMIT ?
                """, arguments: [webhookId, tenant.description, outcome?.rawValue, before ?? Int64.max, limit]).map { try $0.deliveryAttempt() }
        }
    }
}
