import Foundation
import Logging
import MapGeometry
import PostgresNIO
import Synchronization
import Timeline
import Tracking
import WireJSON

/// One tracking write transaction on PostgreSQL (``PostgresTrackingStore/exclusively(_:)``): the
/// same rows SQLiteTrackingStore writes, on the connection that holds the tenant's tracking lock.
final class PostgresTrackingTransaction: TrackingTransaction {
    let store: PostgresTrackingStore
    let connection: PostgresConnection
    let revision: Int64
    /// The last event sequence this transaction wrote.
    let lastEvent = Mutex<Int64?>(nil)
    private let committed = Mutex(false)
    var wrote: Bool { committed.withLock { $0 } }
    /// Whether it wrote what other instances cannot catch up with (``changes(since:)``): they reload.
    let structural = Mutex(false)
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
        let (devices, allTails) = try await devices(since: nil)
        let (profiles, groups) = try await registry()
        let progress = try await progress(since: nil)
        let lastSequence = try await lastSequence()
        let tracked = Set(progress.keys.map(\.deviceId))
        let tails = allTails.filter { tracked.contains($0.key) }
        var filters = IngestFilters.off
        for try await settings in try await connection.query("""
            SELECT settings FROM ingest_filters WHERE tenant = \(tenant)
            """, logger: logger).decode(String.self) {
            filters = try JSONColumn.value(IngestFilters.self, settings, table: "ingest_filters", id: tenant)
        }
        let statuses = try await statuses(since: nil)
        return TrackingState(
            subscriptions: subscriptions, devices: devices.filter { $0.id != StoredProfile.ordinalFloorRow }, progress: progress,
            lastSequence: lastSequence, acceptedFixes: devices.map(\.lastAcceptedOrdinal).max() ?? 0, tails: tails, profiles: profiles, groups: groups, ingestFilters: filters,
            statuses: statuses)
    }

    func commit(_ write: TrackingWrite) async throws -> [Set<Int>] {
        // A batch that stores nothing (all duplicates, say: a client's retry) sends no instance reloading.
        if case .ingest(let plans) = write, plans.allSatisfy(\.writesNothing) {} else { committed.withLock { $0 = true } }
        switch write {
        case .ingest, .deadlines: break
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
        case .deadlines(let plan):
            try await insert(plan.events)
            try await upsert(plan.statuses)
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
        let inserted = try await insertFixes(plans)
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
        try await insert(plans.flatMap(\.events))
        try await upsert(plans.reduce(into: [:]) { all, plan in all.merge(plan.writtenProgress) { $1 } })
        try await upsert(plans.reduce(into: [:]) { all, plan in all.merge(plan.writtenStatuses) { $1 } })
        var devices: [String: DeviceState] = [:]
        for plan in plans where plan.results.contains(where: { $0.status == .accepted }) { devices[plan.deviceId] = plan.device }
        try await upsert(Array(devices.values))
        return duplicates
    }

    /// A stored fix's key.
    private struct FixKey: Hashable {
        var deviceId: String
        var timestamp: Int64
    }

    /// The plans' fixes in one statement; the keys it stored (a late fix meeting a stored instant is skipped).
    private func insertFixes(_ plans: [IngestPlan]) async throws -> Set<FixKey> {
        let stored = plans.flatMap { plan in plan.stored.map { (plan.deviceId, plan.receivedAt.microseconds, $0) } }
        guard !stored.isEmpty else { return [] }
        let fixes = stored.map(\.2.fix)
        func optional(_ value: KeyPath<LocationFix, Double?>) -> ([Double], [Bool]) {
            (fixes.map { $0[keyPath: value] ?? 0 }, fixes.map { $0[keyPath: value] == nil })
        }
        let (speeds, noSpeed) = optional(\.speed), (courses, noCourse) = optional(\.course)
        let (altitudes, noAltitude) = optional(\.altitude), (verticals, noVertical) = optional(\.verticalAccuracy)
        let attributes = fixes.map { $0.attributes.isEmpty ? "" : JSONValue.canonicalText(of: $0.attributes) }
        let rows = try await connection.query("""
            INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, speed, course, altitude,
                                      vertical_accuracy, received_at, late, attributes)
            SELECT \(tenant), device_id, timestamp, latitude, longitude, horizontal_accuracy,
                   CASE WHEN no_speed THEN NULL ELSE speed END, CASE WHEN no_course THEN NULL ELSE course END,
                   CASE WHEN no_altitude THEN NULL ELSE altitude END, CASE WHEN no_vertical THEN NULL ELSE vertical END,
                   received_at, late, NULLIF(attributes, '')
            FROM unnest(\(stored.map(\.0)), \(fixes.map(\.timestamp.microseconds)), \(fixes.map(\.coordinate.latitude)), \(fixes.map(\.coordinate.longitude)),
                        \(fixes.map(\.horizontalAccuracy)), \(speeds), \(noSpeed), \(courses), \(noCourse), \(altitudes), \(noAltitude),
                        \(verticals), \(noVertical), \(stored.map(\.1)), \(stored.map(\.2.late)), \(attributes))
                AS u(device_id, timestamp, latitude, longitude, horizontal_accuracy, speed, no_speed, course, no_course, altitude, no_altitude,
                     vertical, no_vertical, received_at, late, attributes)
            ON CONFLICT DO NOTHING RETURNING device_id, timestamp
            """, logger: logger)
        var inserted: Set<FixKey> = []
        for try await (deviceId, timestamp) in rows.decode((String, Int64).self) { inserted.insert(FixKey(deviceId: deviceId, timestamp: timestamp)) }
        return inserted
    }

    /// Devices' last fixes and ordinals, in one statement (at most one row per device).
    private func upsert(_ devices: [DeviceState]) async throws {
        guard !devices.isEmpty else { return }
        let lastFixes = devices.map { $0.lastFix.map { StoredFix($0).text } ?? "" }, noLastFix = devices.map { $0.lastFix == nil }
        try await connection.query("""
            INSERT INTO device (tenant, id, last_fix, last_fix_at, last_accepted_ordinal, revision)
            SELECT \(tenant), id, CASE WHEN no_last_fix THEN NULL ELSE last_fix END, CASE WHEN no_last_fix THEN NULL ELSE last_fix_at END, ordinal,
                   \(writtenRevision)
            FROM unnest(\(devices.map(\.id)), \(lastFixes), \(devices.map { $0.lastFix?.timestamp.microseconds ?? 0 }), \(noLastFix),
                        \(devices.map(\.lastAcceptedOrdinal)))
                AS u(id, last_fix, last_fix_at, no_last_fix, ordinal)
            ON CONFLICT (tenant, id) DO UPDATE
            SET last_fix = excluded.last_fix, last_fix_at = excluded.last_fix_at, last_accepted_ordinal = excluded.last_accepted_ordinal,
                revision = excluded.revision
            """, logger: logger)
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
        try await insert(plan.events)
    }

    private func commit(_ plan: ChangePlan) async throws {
        try await connection.query("""
            UPDATE subscription SET definition = \(try JSONColumn.text(StoredSubscription(plan.subscription)))
            WHERE tenant = \(tenant) AND id = \(plan.subscription.id)
            """, logger: logger)
        try await upsert(plan.progress)
        try await upsert(plan.statuses)
        try await insert(plan.events)
    }

    /// Status rows, deadlines with them, in one statement (each deadline with a NULL mask).
    func upsert(_ statuses: [ProgressKey: DeviceStatus]) async throws {
        guard !statuses.isEmpty else { return }
        let entries = Array(statuses)
        let offlineAt = entries.map { $0.value.offlineAt?.microseconds ?? 0 }, noOfflineAt = entries.map { $0.value.offlineAt == nil }
        let stoppedAt = entries.map { $0.value.stoppedAt?.microseconds ?? 0 }, noStoppedAt = entries.map { $0.value.stoppedAt == nil }
        try await connection.query("""
            INSERT INTO device_status (tenant, subscription_id, device_id, offline, stopped, offline_at, stopped_at, follows_last_fix, revision)
            SELECT \(tenant), subscription_id, device_id, offline, stopped,
                   CASE WHEN no_offline_at THEN NULL ELSE offline_at END, CASE WHEN no_stopped_at THEN NULL ELSE stopped_at END, follows_last_fix,
                   \(writtenRevision)
            FROM unnest(\(entries.map(\.key.subscriptionId)), \(entries.map(\.key.deviceId)), \(entries.map(\.value.offline)),
                        \(entries.map(\.value.stopped)), \(offlineAt), \(noOfflineAt), \(stoppedAt), \(noStoppedAt), \(entries.map(\.value.followsLastFix)))
                AS u(subscription_id, device_id, offline, stopped, offline_at, no_offline_at, stopped_at, no_stopped_at, follows_last_fix)
            ON CONFLICT (tenant, subscription_id, device_id) DO UPDATE
            SET offline = excluded.offline, stopped = excluded.stopped, offline_at = excluded.offline_at, stopped_at = excluded.stopped_at,
                follows_last_fix = excluded.follows_last_fix, revision = excluded.revision
            """, logger: logger)
    }

    func upsert(_ progress: [ProgressKey: SubscriptionProgress]) async throws {
        guard !progress.isEmpty else { return }
        let entries = Array(progress)
        try await connection.query("""
            INSERT INTO subscription_progress (tenant, subscription_id, device_id, progress, revision)
            SELECT \(tenant), subscription_id, device_id, progress, \(writtenRevision)
            FROM unnest(\(entries.map(\.key.subscriptionId)), \(entries.map(\.key.deviceId)), \(entries.map { StoredProgress($0.value).text }))
                AS u(subscription_id, device_id, progress)
            ON CONFLICT (tenant, subscription_id, device_id) DO UPDATE SET progress = excluded.progress, revision = excluded.revision
            """, logger: logger)
    }

    /// The events in one statement (arrays unnested; each nullable column with a mask).
    private func insert(_ events: [TrackingEvent]) async throws {
        guard let last = events.last?.sequence else { return }
        func nullable(_ values: [String?]) -> ([String], [Bool]) { (values.map { $0 ?? "" }, values.map { $0 == nil }) }
        let (reasons, noReason) = nullable(events.map(\.reason))
        let (previous, noPrevious) = nullable(events.map { $0.previousLocation.map { StoredFix($0).text } })
        let (names, noName) = nullable(events.map(\.subscriptionName))
        let (properties, noProperties) = nullable(events.map {
            $0.subscriptionProperties.isEmpty ? nil : JSONValue.canonicalText(of: $0.subscriptionProperties)
        })
        let (visits, noVisit) = nullable(events.map { StoredVisit.text($0.visit) })
        try await connection.query("""
            INSERT INTO tracking_event (tenant, sequence, id, subscription_id, device_id, kind, reason, location, previous_location,
                                        occurred_at, recorded_at, interpolated, subscription_name, subscription_properties, visit)
            SELECT \(tenant), sequence, id, subscription_id, device_id, kind, CASE WHEN no_reason THEN NULL ELSE reason END, location,
                   CASE WHEN no_previous THEN NULL ELSE previous END, occurred_at, recorded_at, interpolated,
                   CASE WHEN no_name THEN NULL ELSE name END, CASE WHEN no_properties THEN NULL ELSE properties END,
                   CASE WHEN no_visit THEN NULL ELSE visit END
            FROM unnest(\(events.map(\.sequence)), \(events.map(\.id)), \(events.map(\.subscriptionId)), \(events.map(\.deviceId)),
                        \(events.map(\.kind.rawValue)), \(reasons), \(noReason), \(events.map { StoredFix($0.location).text }), \(previous), \(noPrevious),
                        \(events.map(\.occurredAt.microseconds)), \(events.map(\.recordedAt.microseconds)), \(events.map(\.interpolated)),
                        \(names), \(noName), \(properties), \(noProperties), \(visits), \(noVisit))
                AS u(sequence, id, subscription_id, device_id, kind, reason, no_reason, location, previous, no_previous,
                     occurred_at, recorded_at, interpolated, name, no_name, properties, no_properties, visit, no_visit)
            """, logger: logger)
        lastEvent.withLock { $0 = max($0 ?? 0, last) }
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
