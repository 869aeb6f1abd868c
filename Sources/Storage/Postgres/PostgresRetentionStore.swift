import Logging
import PostgresNIO
public import Timeline
public import Tracking

/// ``RetentionStore`` on PostgreSQL, confined to one tenant. Every instance runs the retention
/// task; each batch is one transaction that first tries the tenant's retention lock (a
/// transaction-scoped advisory lock): an instance that does not get it skips the batch, so two
/// instances never delete the same rows or wait on each other, and ingest never waits on it.
public struct PostgresRetentionStore: RetentionStore {
    let database: PostgresDatabase
    public let tenant: TenantID
    var logger: Logger { database.logger }

    /// The first half of the retention lock's key (ASCII "retain"); the second is the tenant's hash.
    static let lockKey: Int32 = 0x7265_7461

    public init(database: PostgresDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
    }

    public func overrides() async throws -> RetentionPolicy {
        var policy = RetentionPolicy()
        for try await (fixes, events) in try await database.client.query("""
            SELECT keep_fixes, keep_events FROM retention WHERE tenant = \(tenant.description)
            """, logger: logger).decode((Int64?, Int64?).self) { policy = RetentionPolicy(keepFixes: fixes, keepEvents: events) }
        return policy
    }

    public func setOverrides(_ overrides: RetentionPolicy) async throws {
        try await database.client.query("""
            INSERT INTO retention (tenant, keep_fixes, keep_events) VALUES (\(tenant.description), \(overrides.keepFixes), \(overrides.keepEvents))
            ON CONFLICT (tenant) DO UPDATE SET keep_fixes = excluded.keep_fixes, keep_events = excluded.keep_events
            """, logger: logger)
    }

    public func marks() async throws -> RetentionMarks {
        var marks = RetentionMarks()
        for try await (through, before) in try await database.client.query("""
            SELECT events_through, fixes_before FROM retention WHERE tenant = \(tenant.description)
            """, logger: logger).decode((Int64, Int64?).self) {
            marks = RetentionMarks(eventsThrough: through, fixesBefore: before.map(Instant.init(microseconds:)))
        }
        return marks
    }

    public func markEvents(recordedBefore horizon: Instant) async throws {
        let tenant = tenant.description
        // Events appended meanwhile are recorded now, after the horizon: the bound never passes one.
        try await database.client.query("""
            INSERT INTO retention (tenant, events_through) VALUES (\(tenant), coalesce(
                (SELECT min(sequence) - 1 FROM tracking_event WHERE tenant = \(tenant) AND recorded_at >= \(horizon.microseconds)
                   AND sequence > coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant)), 0)),
                (SELECT max(sequence) FROM tracking_event WHERE tenant = \(tenant)), 0))
            ON CONFLICT (tenant) DO UPDATE SET events_through = greatest(retention.events_through, excluded.events_through)
            """, logger: logger)
    }

    /// Deletes up to the start of `horizon`'s month only: the rest goes with its month's partition.
    public func deleteEvents(recordedBefore horizon: Instant, limit: Int) async throws -> Int? {
        let (tenant, logger, bound) = (tenant.description, logger, PostgresHistory.rowDeletionBound(horizon).microseconds)
        return try await database.transaction { connection -> Int? in
            guard try await Self.locked(tenant, connection, logger) else { return nil }
            for try await count in try await connection.query("""
                WITH gone AS (
                    DELETE FROM tracking_event WHERE tenant = \(tenant) AND recorded_at < \(bound) AND sequence IN (
                        SELECT sequence FROM tracking_event WHERE tenant = \(tenant) AND recorded_at < \(bound)
                          AND sequence <= coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant)), 0)
                        ORDER BY sequence LIMIT \(limit))
                    RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger).decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Deletes up to the start of `horizon`'s month only: the rest goes with its month's partition.
    public func deleteFixes(before horizon: Instant, from device: String, limit: Int, devices: Int) async throws -> (deleted: Int, next: String?)? {
        let (tenant, logger, horizon) = (tenant.description, logger, PostgresHistory.rowDeletionBound(horizon))
        return try await database.transaction { connection -> (deleted: Int, next: String?)? in
            guard try await Self.locked(tenant, connection, logger) else { return nil }
            func first(_ query: PostgresQuery) async throws -> Int64? {
                for try await value in try await connection.query(query, logger: logger).decode(Int64.self) { return value }
                return nil
            }
            func deviceAfter(_ id: String) async throws -> String? {
                for try await value in try await connection.query("""
                    SELECT device_id FROM location_fix WHERE tenant = \(tenant) AND device_id > \(id) ORDER BY device_id LIMIT 1
                    """, logger: logger).decode(String.self) { return value }
                return nil
            }
            var (deleted, visited) = (0, 0)
            var current: String? = try await device.isEmpty ? deviceAfter("") : device
            while let id = current, visited < devices, deleted < limit {
                visited += 1
                // The timestamp of the device's `budget`-th expired fix: deleting up to it keeps the batch at `limit` rows.
                let cut = try await first("""
                    SELECT timestamp FROM location_fix WHERE tenant = \(tenant) AND device_id = \(id) AND timestamp < \(horizon.microseconds)
                    ORDER BY timestamp LIMIT 1 OFFSET \(limit - deleted - 1)
                    """)
                deleted += Int(try await first("""
                    WITH gone AS (DELETE FROM location_fix WHERE tenant = \(tenant) AND device_id = \(id) AND timestamp <= \(cut ?? horizon.microseconds - 1) RETURNING 1)
                    SELECT count(*) FROM gone
                    """) ?? 0)
                if cut != nil, try await first("""
                    SELECT timestamp FROM location_fix WHERE tenant = \(tenant) AND device_id = \(id) AND timestamp < \(horizon.microseconds) LIMIT 1
                    """) != nil { return (deleted, id) }
                current = try await deviceAfter(id)
            }
            return (deleted, current)
        }
    }

    public func markFixes(before horizon: Instant) async throws {
        try await database.client.query("""
            INSERT INTO retention (tenant, fixes_before) VALUES (\(tenant.description), \(horizon.microseconds))
            ON CONFLICT (tenant) DO UPDATE SET fixes_before = greatest(retention.fixes_before, excluded.fixes_before)
            """, logger: logger)
    }

    /// Takes the tenant's retention lock for the transaction, or answers false at once when another instance holds it.
    private static func locked(_ tenant: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        for try await taken in try await connection.query("""
            SELECT pg_try_advisory_xact_lock(\(lockKey), hashtext(\(tenant)))
            """, logger: logger).decode(Bool.self) { return taken }
        return false
    }
}
