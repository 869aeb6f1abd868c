import Foundation
import Logging
import PostgresNIO
import Synchronization
public import Timeline
public import Tracking
import WireJSON

/// ``SharedTrackingStore`` on PostgreSQL, confined to one tenant. An ingest locks the devices it
/// carries (and the tenant's tracking lock shared); every other tracking write locks the tenant
/// exclusively, then its `tracking` counter row (its revision). So one device's fixes are
/// evaluated once and in order whichever instance they reach, while other devices' batches commit
/// beside them. Each write's last statement numbers its events, accepted fixes and revision from
/// the tenant's counters, held to `COMMIT`, so the log is gap-free in commit order; the `events`
/// counter's notification wakes other instances' long polls and streams. Another instance's
/// ingest is caught up from the rows it wrote (each carries its revision), not by reloading the tenant.
public struct PostgresTrackingStore: SharedTrackingStore, EventLogReader {
    let database: PostgresDatabase
    public let tenant: TenantID
    var logger: Logger { database.logger }

    /// The counter rows: the tracking revision, and the event log's last sequence.
    static let revisionFeed = "tracking"
    public static let eventFeed = "events"

    public init(database: PostgresDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
    }

    /// Where this process's readers of the event log wait (its commits and others' notifications advance it).
    public var eventSignal: SequenceSignal { database.feeds.signal(Self.eventFeed, tenant) }

    public func revision() async throws -> Int64 {
        try await database.withConnection { [self] connection in try await revision(on: connection) }
    }

    private func revision(on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query("""
            SELECT last FROM feed_counter WHERE tenant = \(tenant.description) AND feed = \(Self.revisionFeed)
            """, logger: logger)
        for try await last in rows.decode(Int64.self) { return last }
        return 0
    }

    public func changes(since revision: Int64) async throws -> (changes: TrackingChanges?, revision: Int64) {
        try await database.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            let current = try await self.revision(on: connection)
            guard current != revision else { return (.none, current) }
            return (try await PostgresTrackingTransaction(store: self, connection: connection, revision: current).changes(since: revision), current)
        }
    }

    /// The revision other instances' commits announced (or this one's), as far as heard.
    public var announcedRevision: Int64 { database.feeds.signal(Self.revisionFeed, tenant).latest }

    public func loadState() async throws -> (state: TrackingState, revision: Int64) {
        try await database.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            let revision = try await revision(on: connection)
            return (try await PostgresTrackingTransaction(store: self, connection: connection, revision: revision).loadState(), revision)
        }
    }

    public func exclusively<T: Sendable>(_ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        try await database.transaction { connection in
            // Every ingest holding devices' locks ends first, and none starts until this commits.
            try await PostgresTrackingTransaction.lockTenant(tenant, on: connection, logger: logger)
            let counter = try await FeedAppender.lock(Self.revisionFeed, tenant, on: connection, logger: logger)
            let transaction = PostgresTrackingTransaction(store: self, connection: connection, revision: counter.first)
            let result = try await body(transaction)
            try await transaction.countIfWritten()
            return result
        }
    }

    public func ingesting<T: Sendable>(
        devices: [String], since revision: Int64, _ body: @escaping @Sendable (any TrackingTransaction, TrackingChanges?) async throws -> T
    ) async throws -> T {
        try await database.transaction { connection in
            let transaction = PostgresTrackingTransaction(store: self, connection: connection, revision: revision)
            let changes = try await transaction.changes(lockingDevices: devices, since: revision)
            let result = try await body(transaction, changes)
            try await transaction.countIfWritten()
            return result
        }
    }

    public func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
        try await events(after: sequence, subscriptionIds: subscriptionId.map { [$0] }, limit: limit)
    }

    /// Events after `sequence` in sequence order, of the subscriptions in `subscriptionIds` (nil: all).
    public func events(after sequence: Int64, subscriptionIds: [String]?, limit: Int) async throws -> [TrackingEvent] {
        let subscriptionIds = subscriptionIds?.filter(PostgresText.holds)
        return try await database.withConnection { [tenant, logger] connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresTrackingRows.eventColumns) FROM tracking_event
                WHERE tenant = \(tenant.description) AND sequence > greatest(\(sequence), coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant.description)), 0))
                  AND (\(subscriptionIds == nil) OR subscription_id = ANY(\(subscriptionIds ?? [])))
                ORDER BY sequence LIMIT \(limit)
                """, logger: logger)
            var events: [TrackingEvent] = []
            for try await row in rows.decode(PostgresTrackingRows.EventColumns.self) { events.append(try PostgresTrackingRows.event(row)) }
            return events
        }
    }

    /// How many events after `sequence` belong to `subscriptionIds` (nil: all).
    public func eventCount(after sequence: Int64, subscriptionIds: [String]?) async throws -> Int64 {
        let subscriptionIds = subscriptionIds?.filter(PostgresText.holds)
        let rows = try await database.client.query("""
            SELECT count(*) FROM tracking_event WHERE tenant = \(tenant.description) AND sequence > greatest(\(sequence), coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant.description)), 0))
              AND (\(subscriptionIds == nil) OR subscription_id = ANY(\(subscriptionIds ?? [])))
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return count }
        return 0
    }

    public func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix] {
        guard PostgresText.holds(deviceId) else { return [] }
        return try await database.withConnection { [tenant, logger] connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresTrackingRows.fixColumns) FROM location_fix
                WHERE tenant = \(tenant.description) AND device_id = \(deviceId)
                  AND timestamp BETWEEN \(from?.microseconds ?? Int64.min) AND \(to?.microseconds ?? Int64.max)
                  AND timestamp >= coalesce((SELECT fixes_before FROM retention WHERE tenant = \(tenant.description)), \(Int64.min))
                ORDER BY timestamp LIMIT \(limit)
                """, logger: logger)
            var fixes: [LocationFix] = []
            for try await row in rows.decode(PostgresTrackingRows.FixColumns.self) { fixes.append(try PostgresTrackingRows.fix(row)) }
            return fixes
        }
    }

    /// The greatest subscription, event or webhook id stored in any tenant, so a restart issues ids above it.
    public static func lastIssuedID(on database: PostgresDatabase) async throws -> UUIDv7? {
        let rows = try await database.client.query("""
            SELECT max(id) FROM (SELECT max(id) AS id FROM subscription UNION ALL SELECT max(id) FROM tracking_event
                                 UNION ALL SELECT max(id) FROM webhook) AS ids
            """, logger: database.logger)
        for try await id in rows.decode(String?.self) { return id.flatMap { UUIDv7($0) } }
        return nil
    }
}
