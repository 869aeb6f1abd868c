import Logging
import PostgresNIO
import Timeline
import Tracking

/// Catching up with other instances' commits. Every device, progress and status row carries the
/// tracking revision that wrote it, so what changed since a revision is read by an index range,
/// not by reloading the tenant; a write other than ingest and status deadlines moves the tenant's
/// `tracking-structure` counter to its revision, and a state older than that reloads.
extension PostgresTrackingTransaction {
    /// The counter row holding the revision of the tenant's last write that catching up cannot follow.
    static let structureFeed = "tracking-structure"

    func changes(since revision: Int64) async throws -> TrackingChanges? {
        for try await structure in try await connection.query("""
            SELECT last FROM feed_counter WHERE tenant = \(tenant) AND feed = \(Self.structureFeed)
            """, logger: logger).decode(Int64.self) where structure > revision { return nil }
        let (devices, tails) = try await devices(since: revision)
        return TrackingChanges(
            devices: devices.filter { $0.id != StoredProfile.ordinalFloorRow }, progress: try await progress(since: revision),
            statuses: try await statuses(since: revision), tails: tails, lastSequence: try await lastSequence())
    }

    /// The revision this transaction's rows carry: the one its commit makes.
    var writtenRevision: Int64 { revision + 1 }

    /// Device rows written after `revision` (nil: all), and of each, when its last fix arrived and
    /// its accepted fix before that (what SQLite's store reads per device), in one statement: the
    /// rows and their tails are of one snapshot.
    func devices(since revision: Int64?) async throws -> ([DeviceState], [String: TrackingState.DeviceTail]) {
        // `p` is the accepted fix before the last one, its columns `fixColumns` (all NULL when there is none).
        let rows = try await connection.query("""
            SELECT d.id, d.last_fix, d.last_accepted_ordinal, f.received_at, p.*
            FROM device d
            LEFT JOIN location_fix f ON f.tenant = d.tenant AND f.device_id = d.id AND f.timestamp = d.last_fix_at
            LEFT JOIN LATERAL (
                SELECT \(unescaped: PostgresTrackingRows.fixColumns) FROM location_fix
                WHERE tenant = d.tenant AND device_id = d.id AND timestamp < d.last_fix_at AND NOT late
                ORDER BY timestamp DESC LIMIT 1) p ON true
            WHERE d.tenant = \(tenant) AND (\(revision == nil) OR d.revision > \(revision ?? 0))
            """, logger: logger)
        var devices: [DeviceState] = []
        var tails: [String: TrackingState.DeviceTail] = [:]
        for try await (id, lastFix, ordinal, receivedAt, timestamp, latitude, longitude, accuracy, speed, course, altitude, vertical, attributes) in rows.decode(
            (String, String?, Int64, Int64?, Int64?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, String?).self) {
            let fix = try lastFix.map { try JSONColumn.value(StoredFix.self, $0, table: "device", id: id).fix }
            devices.append(DeviceState(id: id, lastFix: fix, lastAcceptedOrdinal: ordinal))
            guard let receivedAt else { continue }
            var before: LocationFix?
            if let timestamp, let latitude, let longitude, let accuracy {
                before = try PostgresTrackingRows.fix((timestamp, latitude, longitude, accuracy, speed, course, altitude, vertical, attributes))
            }
            tails[id] = .init(receivedAt: Instant(microseconds: receivedAt), previous: before)
        }
        return (devices, tails)
    }

    /// Progress rows written after `revision` (nil: all).
    func progress(since revision: Int64?) async throws -> [ProgressKey: SubscriptionProgress] {
        var progress: [ProgressKey: SubscriptionProgress] = [:]
        for try await (subscriptionId, deviceId, text) in try await connection.query("""
            SELECT subscription_id, device_id, progress FROM subscription_progress
            WHERE tenant = \(tenant) AND (\(revision == nil) OR revision > \(revision ?? 0))
            """, logger: logger).decode((String, String, String).self) {
            progress[ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)] =
                try JSONColumn.value(StoredProgress.self, text, table: "subscription_progress", id: "\(subscriptionId)/\(deviceId)").progress
        }
        return progress
    }

    /// Status rows written after `revision` (nil: all).
    func statuses(since revision: Int64?) async throws -> [ProgressKey: DeviceStatus] {
        var statuses: [ProgressKey: DeviceStatus] = [:]
        for try await (subscriptionId, deviceId, offline, stopped, offlineAt, stoppedAt, followsLastFix) in try await connection.query("""
            SELECT subscription_id, device_id, offline, stopped, offline_at, stopped_at, follows_last_fix FROM device_status
            WHERE tenant = \(tenant) AND (\(revision == nil) OR revision > \(revision ?? 0))
            """, logger: logger).decode((String, String, Bool, Bool, Int64?, Int64?, Bool).self) {
            statuses[ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)] = DeviceStatus(
                offline: offline, stopped: stopped, offlineAt: offlineAt.map(Instant.init(microseconds:)), stoppedAt: stoppedAt.map(Instant.init(microseconds:)),
                followsLastFix: followsLastFix)
        }
        return statuses
    }

    /// The event log's last sequence, or the retention mark past it: the counter every event
    /// write raises in its transaction (one row, where the log's own maximum looks into every
    /// month partition), the log's maximum only where no counter was written yet.
    func lastSequence() async throws -> Int64 {
        for try await last in try await connection.query("""
            SELECT greatest(coalesce((SELECT last FROM feed_counter WHERE tenant = \(tenant) AND feed = \(PostgresTrackingStore.eventFeed)),
                                     (SELECT max(sequence) FROM tracking_event WHERE tenant = \(tenant)), 0),
                            coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant)), 0))
            """, logger: logger).decode(Int64.self) { return last }
        return 0
    }
}
