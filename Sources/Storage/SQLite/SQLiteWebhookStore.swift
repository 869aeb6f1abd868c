public import Delivery
import GRDB
public import Timeline

/// ``WebhookStore`` on SQLite, confined to one tenant.
public struct SQLiteWebhookStore: WebhookStore {
    let database: MeridianDatabase
    public let tenant: TenantID

    public init(database: MeridianDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
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

    public func modify(id: String, _ change: @escaping @Sendable (inout Webhook) -> Void) async throws -> Webhook? {
        let tenant = tenant.description
        return try await database.writer.write { db in
            guard var webhook = try WebhookRecord.fetchOne(db, sql: "SELECT * FROM webhook WHERE id = ? AND tenant = ?", arguments: [id, tenant])?.webhook()
            else { return nil }
            change(&webhook)
            try db.execute(sql: WebhookRecord.updateSQL, arguments: try WebhookRecord.settings(webhook) + [webhook.updatedAt.microseconds, id, tenant])
            return webhook
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
        let tenant = tenant.description
        return try await database.writer.write { db in
            try db.cachedStatement(sql: WebhookDeliveryRecord.insertSQL).execute(arguments: WebhookDeliveryRecord.arguments(attempt))
            guard let cursor else { return false }
            try db.cachedStatement(sql: "UPDATE webhook SET cursor = ? WHERE id = ? AND tenant = ? AND epoch = ? AND cursor < ?")
                .execute(arguments: [cursor, attempt.webhookId, tenant, epoch, cursor])
            return db.changesCount > 0
        }
    }

    public func pruneAttempts(webhookId: String, keeping: Int) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                DELETE FROM webhookDelivery WHERE webhookId = ?1 AND id <= (SELECT id FROM webhookDelivery WHERE webhookId = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                """, arguments: [webhookId, keeping])
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
