import GRDB
public import Tracking
import Timeline

/// The event log as delivery reads it: of some subscriptions, counted.
public protocol EventLogReader: Sendable {
    /// Events after `sequence` in sequence order, of the subscriptions in `subscriptionIds` (nil: all).
    func events(after sequence: Int64, subscriptionIds: [String]?, limit: Int) async throws -> [TrackingEvent]
    /// How many events after `sequence` belong to `subscriptionIds` (nil: all).
    func eventCount(after sequence: Int64, subscriptionIds: [String]?) async throws -> Int64
}

extension SQLiteTrackingStore: EventLogReader {
    /// Events after `sequence` in sequence order, of the subscriptions in `subscriptionIds` (nil: all).
    public func events(after sequence: Int64, subscriptionIds: [String]?, limit: Int) async throws -> [TrackingEvent] {
        guard let subscriptionIds else { return try await events(subscriptionId: nil, after: sequence, limit: limit) }
        guard !subscriptionIds.isEmpty else { return [] }
        let tenant = tenant.description
        return try await database.writer.read { db in
            let sequence = max(sequence, try SQLiteRetentionStore.marks(tenant, in: db).eventsThrough)
            return try TrackingEventRecord.fetchAll(db, sql: """
                SELECT * FROM trackingEvent WHERE tenant = ? AND sequence > ? AND subscriptionId IN (SELECT value FROM json_each(?))
                ORDER BY sequence LIMIT ?
                """, arguments: [tenant, sequence, try JSONColumn.text(subscriptionIds), limit]).map { try $0.event() }
        }
    }

    /// How many events after `sequence` belong to `subscriptionIds` (nil: all).
    public func eventCount(after sequence: Int64, subscriptionIds: [String]?) async throws -> Int64 {
        let tenant = tenant.description
        return try await database.writer.read { db in
            let sequence = max(sequence, try SQLiteRetentionStore.marks(tenant, in: db).eventsThrough)
            return if let subscriptionIds {
                try Int64.fetchOne(db, sql: """
                    SELECT count(*) FROM trackingEvent WHERE tenant = ? AND sequence > ? AND subscriptionId IN (SELECT value FROM json_each(?))
                    """, arguments: [tenant, sequence, try JSONColumn.text(subscriptionIds)]) ?? 0
            } else {
                try Int64.fetchOne(db, sql: "SELECT count(*) FROM trackingEvent WHERE tenant = ? AND sequence > ?", arguments: [tenant, sequence]) ?? 0
            }
        }
    }
}
