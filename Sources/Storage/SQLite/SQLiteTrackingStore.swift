import Foundation
import GRDB
import MapGeometry
import WireJSON
public import Tracking
public import Timeline

/// ``TrackingStore`` on SQLite, confined to one tenant (its devices, fixes, subscriptions and
/// event log, numbered from 1). An ingest (fixes, events, device, progress) or a subscription
/// change is one transaction, committed (in the WAL) before the call returns.
public struct SQLiteTrackingStore: TrackingStore {
    let database: MeridianDatabase
    /// Whose devices and subscriptions these are.
    public let tenant: TenantID

    public init(database: MeridianDatabase, tenant: TenantID = .default) {
        self.database = database
        self.tenant = tenant
    }

    public func loadState() throws -> TrackingState {
        let tenant: StatementArguments = [tenant.description]
        return try database.writer.read { db in
            let subscriptions = try SubscriptionRecord.fetchAll(db, sql: "SELECT * FROM subscription WHERE tenant = ? ORDER BY id", arguments: tenant)
                .map { try $0.subscription() }
            let rows = try DeviceRecord.fetchAll(db, sql: "SELECT * FROM device WHERE tenant = ?", arguments: tenant).map { try $0.device() }
            let devices = rows.filter { $0.id != StoredProfile.ordinalFloorRow }
            var progress: [ProgressKey: SubscriptionProgress] = [:]
            let progressSQL = "SELECT p.* FROM subscriptionProgress p JOIN subscription s ON s.id = p.subscriptionId WHERE s.tenant = ?"
            for record in try SubscriptionProgressRecord.fetchAll(db, sql: progressSQL, arguments: tenant) { progress[record.key] = try record.value() }
            // Retention may have deleted the whole log: numbering goes on after what it deleted.
            let lastSequence = try Int64.fetchOne(db, sql: """
                SELECT max(coalesce((SELECT max(sequence) FROM trackingEvent WHERE tenant = ?1), 0),
                           coalesce((SELECT eventsThrough FROM retention WHERE tenant = ?1), 0))
                """, arguments: tenant) ?? 0
            let acceptedFixes = rows.map(\.lastAcceptedOrdinal).max() ?? 0
            let (profiles, groups) = try Self.registry(tenant: tenant, in: db)
            let tracked = Set(progress.keys.map(\.deviceId))
            let tails = try Self.tails(of: devices.filter { tracked.contains($0.id) }, tenant: tenant, in: db)
            let filters = try String.fetchOne(db, sql: "SELECT settings FROM ingestFilters WHERE tenant = ?", arguments: tenant)
                .map { try JSONColumn.value(IngestFilters.self, $0, table: "ingestFilters", id: self.tenant.description) }
            let statuses = try DeviceStatusRecord.fetchAll(db, sql: "SELECT * FROM deviceStatus WHERE tenant = ?", arguments: tenant)
            return TrackingState(
                subscriptions: subscriptions, devices: devices, progress: progress, lastSequence: lastSequence, acceptedFixes: acceptedFixes, tails: tails,
                profiles: profiles, groups: groups, ingestFilters: filters ?? .off,
                statuses: Dictionary(statuses.map { ($0.key, $0.status) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    /// When each device's last fix arrived and its accepted fix before it.
    private static func tails(of devices: [DeviceState], tenant: StatementArguments, in db: Database) throws -> [String: TrackingState.DeviceTail] {
        let arrival = try db.cachedStatement(sql: "SELECT receivedAt FROM locationFix WHERE tenant = ? AND deviceId = ? AND timestamp = ?")
        let before = try db.cachedStatement(
            sql: "SELECT * FROM locationFix WHERE tenant = ? AND deviceId = ? AND timestamp < ? AND late = 0 ORDER BY timestamp DESC LIMIT 1")
        var tails: [String: TrackingState.DeviceTail] = [:]
        for device in devices {
            guard let fix = device.lastFix else { continue }
            let arguments = tenant + [device.id, fix.timestamp.microseconds]
            guard let receivedAt = try Int64.fetchOne(arrival, arguments: arguments) else { continue }
            tails[device.id] = .init(receivedAt: Instant(microseconds: receivedAt), previous: try LocationFixRecord.fetchOne(before, arguments: arguments)?.fix)
        }
        return tails
    }

    public func commit(_ write: TrackingWrite) throws -> [Set<Int>] {
        switch write {
        case .ingest(let plans): return try commit(plans)
        case .subscription(let subscription): try insert(subscription)
        case .deletion(let plan): try commit(plan)
        case .change(let plan): try commit(plan)
        case .ingestFilters(let filters):
            let settings = try JSONColumn.text(filters)
            try database.writer.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO ingestFilters (tenant, settings) VALUES (?, ?)", arguments: [tenant.description, settings])
            }
        case .profile(let plan): try database.writer.write { db in try commit(plan, in: db) }
        case .group(let name, let group): try database.writer.write { db in try save(group, named: name, in: db) }
        case .erasure(let erasure): try database.writer.write { db in try commit(erasure, in: db) }
        case .deadlines(let plan):
            try database.writer.write { db in
                try insert(plan.events, in: db)
                try upsert(plan.statuses, in: db)
            }
        }
        return []
    }

    /// The plans' fixes, events, devices and progress in one transaction, in order; per plan, the duplicates.
    private func commit(_ plans: [IngestPlan]) throws -> [Set<Int>] {
        try database.writer.write { db in try plans.map { try commit($0, in: db) } }
    }

    private func commit(_ plan: IngestPlan, in db: Database) throws -> Set<Int> {
        var duplicates: Set<Int> = []
        let insertFix = try db.cachedStatement(sql: LocationFixRecord.insertSQL)
        for stored in plan.stored {
            let fix = stored.fix
            try insertFix.execute(arguments: [
                tenant.description, plan.deviceId, fix.timestamp.microseconds, fix.coordinate.latitude, fix.coordinate.longitude, fix.horizontalAccuracy,
                fix.speed, fix.course, fix.altitude, fix.verticalAccuracy, plan.receivedAt.microseconds, stored.late,
                fix.attributes.isEmpty ? nil : JSONValue.canonicalText(of: fix.attributes),
            ])
            if db.changesCount == 0 {
                // Only a late fix can meet a stored instant; an accepted one is newer than all of them.
                guard stored.late else { throw TrackingStoreError.acceptedFixAlreadyStored(plan.deviceId, fix.timestamp) }
                duplicates.insert(stored.index)
            }
        }
        try insert(plan.events, in: db)
        try upsert(plan.writtenProgress, in: db)
        try upsert(plan.writtenStatuses, in: db)
        if plan.results.contains(where: { $0.status == .accepted }) {
            try db.cachedStatement(sql: DeviceRecord.upsertSQL)
                .execute(arguments: [tenant.description, plan.deviceId, plan.device.lastFix.map { StoredFix($0).text }, plan.device.lastAcceptedOrdinal])
        }
        return duplicates
    }

    private func insert(_ subscription: Subscription) throws {
        try database.writer.write { db in
            try db.execute(
                sql: SubscriptionRecord.insertSQL,
                arguments: [tenant.description, subscription.id, try JSONColumn.text(StoredSubscription(subscription)), subscription.createdAt.microseconds, subscription.acceptedFixesBefore]
            )
        }
    }

    private func commit(_ plan: DeletionPlan) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "UPDATE subscription SET deletedAt = ? WHERE id = ? AND tenant = ?",
                arguments: [plan.subscription.deletedAt?.microseconds, plan.subscription.id, tenant.description])
            try db.execute(sql: "DELETE FROM subscriptionProgress WHERE subscriptionId = ?", arguments: [plan.subscription.id])
            try db.execute(sql: "DELETE FROM deviceStatus WHERE tenant = ? AND subscriptionId = ?", arguments: [tenant.description, plan.subscription.id])
            try insert(plan.events, in: db)
        }
    }

    private func commit(_ plan: ChangePlan) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "UPDATE subscription SET definition = ? WHERE id = ? AND tenant = ?",
                arguments: [try JSONColumn.text(StoredSubscription(plan.subscription)), plan.subscription.id, tenant.description])
            try upsert(plan.progress, in: db)
            try upsert(plan.statuses, in: db)
            try insert(plan.events, in: db)
        }
    }

    public func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
        try await database.writer.read { [tenant] db in
            // Never behind retention's mark (SQLite deletes what it hides in the same sweep, moments later).
            let sequence = max(sequence, try SQLiteRetentionStore.marks(tenant.description, in: db).eventsThrough)
            let records = if let subscriptionId {
                try TrackingEventRecord.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM trackingEvent WHERE tenant = ? AND subscriptionId = ? AND sequence > ? ORDER BY sequence LIMIT ?"),
                    arguments: [tenant.description, subscriptionId, sequence, limit])
            } else {
                try TrackingEventRecord.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM trackingEvent WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?"),
                    arguments: [tenant.description, sequence, limit])
            }
            return try records.map { try $0.event() }
        }
    }

    public func fixes(deviceId: String, from: Instant?, to: Instant?, limit: Int) async throws -> [LocationFix] {
        try await database.writer.read { [tenant] db in
            let hidden = try SQLiteRetentionStore.marks(tenant.description, in: db).fixesBefore?.microseconds ?? Int64.min
            return try LocationFixRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM locationFix WHERE tenant = ? AND deviceId = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp LIMIT ?"),
                arguments: [tenant.description, deviceId, max(from?.microseconds ?? Int64.min, hidden), to?.microseconds ?? Int64.max, limit]
            ).map { try $0.fix }
        }
    }

    func upsert(_ progress: [ProgressKey: SubscriptionProgress], in db: Database) throws {
        let statement = try db.cachedStatement(sql: SubscriptionProgressRecord.upsertSQL)
        for (key, value) in progress {
            try statement.execute(arguments: [key.subscriptionId, key.deviceId, StoredProgress(value).text])
        }
    }

    /// Status rows, deadlines with them.
    func upsert(_ statuses: [ProgressKey: DeviceStatus], in db: Database) throws {
        guard !statuses.isEmpty else { return }
        let statement = try db.cachedStatement(sql: DeviceStatusRecord.upsertSQL)
        for (key, status) in statuses {
            try statement.execute(arguments: [
                tenant.description, key.subscriptionId, key.deviceId, status.offline, status.stopped,
                status.offlineAt?.microseconds, status.stoppedAt?.microseconds, status.followsLastFix,
            ])
        }
    }

    private func insert(_ events: [TrackingEvent], in db: Database) throws {
        let statement = try db.cachedStatement(sql: TrackingEventRecord.insertSQL)
        for event in events {
            try statement.execute(arguments: [
                tenant.description, event.sequence, event.id, event.subscriptionId, event.deviceId, event.kind.rawValue, event.reason,
                StoredFix(event.location).text, event.previousLocation.map { StoredFix($0).text },
                event.occurredAt.microseconds, event.recordedAt.microseconds, event.interpolated,
                event.subscriptionName, event.subscriptionProperties.isEmpty ? nil : JSONValue.canonicalText(of: event.subscriptionProperties),
                StoredVisit.text(event.visit),
            ])
        }
    }
}

/// What the tracking store found inconsistent (a bug, never the client's input).
public enum TrackingStoreError: Error, Hashable, Sendable {
    case acceptedFixAlreadyStored(String, Instant)
}

extension SQLiteTrackingStore {
    /// The greatest subscription, event or webhook id stored, so a restart issues ids above it.
    public func lastIssuedID() async throws -> UUIDv7? {
        try await database.writer.read { db in
            let text = try String.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT max(id) AS id FROM subscription UNION ALL SELECT max(id) FROM trackingEvent UNION ALL SELECT max(id) FROM webhook)
                """)
            return text.flatMap { UUIDv7($0) }
        }
    }
}
