import Foundation
import Logging
import MapGeometry
import PostgresNIO
import Synchronization
import Timeline
import Tracking
import WireJSON

/// One tracking write transaction on PostgreSQL: the same rows SQLiteTrackingStore writes, on the
/// connection that holds the tenant's tracking lock (``PostgresTrackingStore/exclusively(_:)``) or
/// its devices' (``PostgresTrackingStore/ingesting(devices:since:_:)``).
final class PostgresTrackingTransaction: TrackingTransaction {
    let store: PostgresTrackingStore
    let connection: PostgresConnection
    /// The revision committed before this transaction (exclusive), or the one its devices were caught up from (ingest).
    let revision: Int64
    /// The revision this transaction's rows carry, once a rows statement took it from the counter (``write(_:)``).
    let taken = Mutex<Int64?>(nil)
    /// How its rows statements numbered events and ordinals from the tenant's counters.
    let numbered = Mutex(CommitNumbering())
    private let committed = Mutex(false)
    var wrote: Bool { committed.withLock { $0 } }
    /// Whether it wrote what other instances cannot catch up with (``changes(since:)``): they reload.
    let structural = Mutex(false)
    /// Whether it wrote status deadlines: a device's status rows then changed without its device row.
    let deadlines = Mutex(false)
    var tenant: String { store.tenant.description }
    var logger: Logger { store.logger }

    init(store: PostgresTrackingStore, connection: PostgresConnection, revision: Int64) {
        self.store = store
        self.connection = connection
        self.revision = revision
    }

    func loadState() async throws -> TrackingState {
        var subscriptions: [Subscription] = []
        for try await row in try await connection.query("""
            SELECT id, definition, created_at, accepted_fixes_before, deleted_at FROM subscription WHERE tenant = \(tenant) ORDER BY id
            """, logger: logger).decode((String, String, Int64, Int64, Int64?).self) {
            let (id, definition, createdAt, acceptedBefore, deletedAt) = row
            subscriptions.append(try JSONColumn.value(StoredSubscription.self, definition, table: "subscription", id: id)
                .subscription(id: id, createdAt: createdAt, acceptedFixesBefore: acceptedBefore, deletedAt: deletedAt))
        }
        let read = try await read(since: nil, of: nil, locking: false).changes
        let (profiles, groups) = try await registry()
        let tracked = Set(read.progress.keys.map(\.deviceId))
        let tails = read.tails.filter { tracked.contains($0.key) }
        var filters = IngestFilters.off
        for try await settings in try await connection.query("""
            SELECT settings FROM ingest_filters WHERE tenant = \(tenant)
            """, logger: logger).decode(String.self) {
            filters = try JSONColumn.value(IngestFilters.self, settings, table: "ingest_filters", id: tenant)
        }
        return TrackingState(
            subscriptions: subscriptions, devices: read.devices.filter { $0.id != StoredProfile.ordinalFloorRow }, progress: read.progress,
            lastSequence: read.lastSequence, acceptedFixes: max(read.acceptedFixes, read.devices.map(\.lastAcceptedOrdinal).max() ?? 0), tails: tails, profiles: profiles, groups: groups, ingestFilters: filters,
            statuses: read.statuses)
    }

    var committedRevision: Int64? { taken.withLock { $0 } }
    var numbering: CommitNumbering { numbered.withLock { $0 } }

    func commit(_ write: TrackingWrite) async throws -> [Set<Int>] {
        // A batch that stores nothing (all duplicates, say: a client's retry) sends no instance reloading.
        if case .ingest(let plans) = write, plans.allSatisfy(\.writesNothing) {} else { committed.withLock { $0 = true } }
        switch write {
        case .ingest: break
        case .deadlines: deadlines.withLock { $0 = true }
        default: structural.withLock { $0 = true }
        }
        switch write {
        case .ingest(let plans): return try await commit(plans)
        case .subscription(let subscription): try await insert(subscription)
        case .deletion(let plan): try await commit(plan)
        case .change(let plan): try await commit(plan)
        case .ingestFilters(let filters):
            try await connection.query("""
                INSERT INTO ingest_filters (tenant, settings) VALUES (\(tenant), \(try JSONColumn.text(filters)))
                ON CONFLICT (tenant) DO UPDATE SET settings = excluded.settings
                """, logger: logger)
        case .profile(let plan): try await commit(plan)
        case .group(let name, let group): try await save(group, named: name)
        case .erasure(let erasure): try await commit(erasure)
        case .deadlines(let plan): try await self.write(TrackingRows(events: plan.events, statuses: plan.statuses))
        }
        return []
    }

    /// The plans' fixes, events, devices, progress and statuses, one statement per table for the
    /// whole group (a later plan's row of a device wins: it holds the earlier one's changes); per
    /// plan, the duplicates. Plans storing the same instant of one device (a late fix sent twice in
    /// a group) are stored one statement each, so the second finds the first's row.
    private func commit(_ plans: [IngestPlan]) async throws -> [Set<Int>] {
        var instants: Set<FixKey> = []
        for plan in plans {
            for stored in plan.stored where !instants.insert(FixKey(deviceId: plan.deviceId, timestamp: stored.fix.timestamp.microseconds)).inserted {
                var duplicates: [Set<Int>] = []
                for plan in plans { duplicates.append(try await commit([plan])[0]) }
                return duplicates
            }
        }
        var rows = TrackingRows()
        var devices: [String: DeviceState] = [:]
        for plan in plans {
            rows.fixes += plan.stored.map { (plan.deviceId, plan.receivedAt.microseconds, $0) }
            rows.events += plan.events
            rows.progress.merge(plan.writtenProgress) { $1 }
            rows.statuses.merge(plan.writtenStatuses) { $1 }
            if plan.results.contains(where: { $0.status == .accepted }) { devices[plan.deviceId] = plan.device }
        }
        rows.devices = Array(devices.values)
        let inserted = try await write(rows)
        var duplicates: [Set<Int>] = []
        for plan in plans {
            var found: Set<Int> = []
            for stored in plan.stored where !inserted.contains(FixKey(deviceId: plan.deviceId, timestamp: stored.fix.timestamp.microseconds)) {
                // Only a late fix can meet a stored instant; an accepted one is newer than all of them.
                guard stored.late else { throw TrackingStoreError.acceptedFixAlreadyStored(plan.deviceId, stored.fix.timestamp) }
                found.insert(stored.index)
            }
            duplicates.append(found)
        }
        return duplicates
    }

    private func insert(_ subscription: Subscription) async throws {
        try await connection.query("""
            INSERT INTO subscription (tenant, id, definition, created_at, accepted_fixes_before, deleted_at)
            VALUES (\(tenant), \(subscription.id), \(try JSONColumn.text(StoredSubscription(subscription))), \(subscription.createdAt.microseconds),
                    \(subscription.acceptedFixesBefore), NULL)
            """, logger: logger)
    }

    private func commit(_ plan: DeletionPlan) async throws {
        try await connection.query("""
            UPDATE subscription SET deleted_at = \(plan.subscription.deletedAt?.microseconds) WHERE tenant = \(tenant) AND id = \(plan.subscription.id)
            """, logger: logger)
        try await connection.query("""
            DELETE FROM subscription_progress WHERE tenant = \(tenant) AND subscription_id = \(plan.subscription.id)
            """, logger: logger)
        try await connection.query("""
            DELETE FROM device_status WHERE tenant = \(tenant) AND subscription_id = \(plan.subscription.id)
            """, logger: logger)
        try await write(TrackingRows(events: plan.events))
    }

    private func commit(_ plan: ChangePlan) async throws {
        try await connection.query("""
            UPDATE subscription SET definition = \(try JSONColumn.text(StoredSubscription(plan.subscription)))
            WHERE tenant = \(tenant) AND id = \(plan.subscription.id)
            """, logger: logger)
        try await write(TrackingRows(events: plan.events, progress: plan.progress, statuses: plan.statuses))
    }
}

/// The mapping between tracking rows and the domain on PostgreSQL.
enum PostgresTrackingRows {
    static let fixColumns = "timestamp, latitude, longitude, horizontal_accuracy, speed, course, altitude, vertical_accuracy, attributes"
    typealias FixColumns = (Int64, Double, Double, Double, Double?, Double?, Double?, Double?, String?)

    static func fix(_ row: FixColumns) throws -> LocationFix {
        let (timestamp, latitude, longitude, accuracy, speed, course, altitude, vertical, attributes) = row
        return LocationFix(coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: Instant(microseconds: timestamp),
                           horizontalAccuracy: accuracy, speed: speed, course: course, altitude: altitude, verticalAccuracy: vertical,
                           attributes: try attributes.map { try JSONColumn.value([String: JSONValue].self, $0, table: "location_fix", id: String(timestamp)) } ?? [:])
    }

    static let eventColumns = """
        sequence, id, subscription_id, device_id, kind, reason, location, previous_location, occurred_at, recorded_at, interpolated,
        subscription_name, subscription_properties, erased, visit
        """
    typealias EventColumns = (Int64, String, String, String, String, String?, String, String?, Int64, Int64, Bool, String?, String?, Bool, String?)

    static func event(_ row: EventColumns) throws -> TrackingEvent {
        let (sequence, id, subscriptionId, deviceId, kind, reason, location, previous, occurredAt, recordedAt, interpolated, name, properties, erased, visit) = row
        if erased { return .erased(id: id, sequence: sequence, subscriptionId: subscriptionId, recordedAt: Instant(microseconds: recordedAt)) }
        let table = "tracking_event", key = "\(sequence)"
        guard let kind = TrackingEvent.Kind(rawValue: kind) else { throw StorageError.corruptRow(table: table, id: key) }
        return TrackingEvent(
            id: id, sequence: sequence, subscriptionId: subscriptionId, subscriptionName: name,
            subscriptionProperties: try properties.map { try JSONColumn.value([String: JSONValue].self, $0, table: table, id: key) } ?? [:],
            deviceId: deviceId, kind: kind, reason: reason,
            location: try JSONColumn.value(StoredFix.self, location, table: table, id: key).fix,
            previousLocation: try previous.map { try JSONColumn.value(StoredFix.self, $0, table: table, id: key).fix },
            occurredAt: Instant(microseconds: occurredAt), recordedAt: Instant(microseconds: recordedAt), interpolated: interpolated,
            visit: try visit.map { try JSONColumn.value(StoredVisit.self, $0, table: table, id: key).visit })
    }
}
