import GRDB
public import Timeline
public import Tracking

/// ``RetentionStore`` on SQLite, confined to one tenant. Each call is one short write transaction
/// on the one writer, so ingest's transactions queue behind at most one small batch.
public struct SQLiteRetentionStore: RetentionStore {
    let database: MeridianDatabase
    public let tenant: TenantID

    public init(database: MeridianDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
    }

    public func overrides() async throws -> RetentionPolicy {
        try await database.writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT keepFixes, keepEvents FROM retention WHERE tenant = ?", arguments: [tenant.description])
            return RetentionPolicy(keepFixes: row?["keepFixes"], keepEvents: row?["keepEvents"])
        }
    }

    public func setOverrides(_ overrides: RetentionPolicy) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO retention (tenant, keepFixes, keepEvents) VALUES (?, ?, ?)
                ON CONFLICT (tenant) DO UPDATE SET keepFixes = excluded.keepFixes, keepEvents = excluded.keepEvents
                """, arguments: [tenant.description, overrides.keepFixes, overrides.keepEvents])
        }
    }

    public func marks() async throws -> RetentionMarks {
        try await database.writer.read { db in try Self.marks(tenant.description, in: db) }
    }

    static func marks(_ tenant: String, in db: Database) throws -> RetentionMarks {
        let row = try Row.fetchOne(db, sql: "SELECT eventsThrough, fixesBefore FROM retention WHERE tenant = ?", arguments: [tenant])
        return RetentionMarks(eventsThrough: row?["eventsThrough"] ?? 0, fixesBefore: (row?["fixesBefore"] as Int64?).map(Instant.init(microseconds:)))
    }

    public func markEvents(recordedBefore horizon: Instant) async throws {
        let tenant = tenant.description
        // Found in a read (a backlog's scan does not hold the writer); events appended since are recorded now, after the horizon.
        let bound = try await database.writer.read { db in
            let through = try Self.marks(tenant, in: db).eventsThrough
            return try Int64.fetchOne(db, sql: """
                SELECT coalesce((SELECT min(sequence) - 1 FROM trackingEvent WHERE tenant = ?1 AND sequence > ?2 AND recordedAt >= ?3),
                                (SELECT max(sequence) FROM trackingEvent WHERE tenant = ?1), 0)
                """, arguments: [tenant, through, horizon.microseconds]) ?? 0
        }
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO retention (tenant, eventsThrough) VALUES (?, ?)
                ON CONFLICT (tenant) DO UPDATE SET eventsThrough = max(eventsThrough, excluded.eventsThrough)
                """, arguments: [tenant, bound])
        }
    }

    public func deleteEvents(recordedBefore horizon: Instant, limit: Int) async throws -> Int? {
        let tenant = tenant.description
        return try await database.writer.write { db in
            let through = try Self.marks(tenant, in: db).eventsThrough
            try db.execute(sql: """
                DELETE FROM trackingEvent WHERE tenant = ?1 AND sequence IN (
                    SELECT sequence FROM trackingEvent WHERE tenant = ?1 AND sequence <= ?2 AND recordedAt < ?3 ORDER BY sequence LIMIT ?4)
                """, arguments: [tenant, through, horizon.microseconds, limit])
            return db.changesCount
        }
    }

    public func deleteFixes(before horizon: Instant, from device: String, limit: Int, devices: Int) async throws -> (deleted: Int, next: String?)? {
        let tenant = tenant.description
        return try await database.writer.write { db in
            let nextDevice = try db.cachedStatement(sql: "SELECT deviceId FROM locationFix WHERE tenant = ? AND deviceId > ? ORDER BY deviceId LIMIT 1")
            // The timestamp of the device's `limit`-th expired fix: deleting up to it keeps the batch at `limit` rows.
            let cut = try db.cachedStatement(sql: """
                SELECT timestamp FROM locationFix WHERE tenant = ? AND deviceId = ? AND timestamp < ? ORDER BY timestamp LIMIT 1 OFFSET ?
                """)
            let delete = try db.cachedStatement(sql: "DELETE FROM locationFix WHERE tenant = ? AND deviceId = ? AND timestamp <= ?")
            var (deleted, visited) = (0, 0)
            var current: String? = try device.isEmpty ? String.fetchOne(nextDevice, arguments: [tenant, ""]) : device
            while let id = current, visited < devices, deleted < limit {
                visited += 1
                let budget = limit - deleted
                if let last = try Int64.fetchOne(cut, arguments: [tenant, id, horizon.microseconds, budget - 1]) {
                    try delete.execute(arguments: [tenant, id, last])
                    deleted += db.changesCount
                    // The batch is full: this device may hold more.
                    if try Int64.fetchOne(cut, arguments: [tenant, id, horizon.microseconds, 0]) != nil { return (deleted, id) }
                } else {
                    try delete.execute(arguments: [tenant, id, horizon.microseconds - 1])
                    deleted += db.changesCount
                }
                current = try String.fetchOne(nextDevice, arguments: [tenant, id])
            }
            return (deleted, current)
        }
    }

    public func markFixes(before horizon: Instant) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO retention (tenant, fixesBefore) VALUES (?, ?)
                ON CONFLICT (tenant) DO UPDATE SET fixesBefore = max(coalesce(fixesBefore, excluded.fixesBefore), excluded.fixesBefore)
                """, arguments: [tenant.description, horizon.microseconds])
        }
    }
}
