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
    /// The counter row holding the revision of the tenant's last status deadlines (status rows changed without their device row).
    static let deadlinesFeed = "tracking-deadlines"
    /// The counter of accepted fixes, their ordinals' source.
    static let acceptedFeed = "tracking-accepted"

    /// What other instances' commits changed since `revision`, in two statements (the marks with
    /// the device rows, then the progress and status rows; under the tenant's lock, or in a
    /// read-only snapshot before it); nil when a write since cannot be followed (reload).
    func changes(since revision: Int64) async throws -> TrackingChanges? {
        let read = try await devices(since: revision)
        guard read.structure <= revision else { return nil }
        let (progress, statuses) = try await progressAndStatuses(since: revision)
        return TrackingChanges(
            devices: read.devices.filter { $0.id != StoredProfile.ordinalFloorRow }, progress: progress, statuses: statuses,
            tails: read.tails, lastSequence: read.lastSequence, acceptedFixes: read.acceptedFixes)
    }

    /// What other instances' commits changed of `devices` since `revision`, their locks held: the
    /// device rows with the marks, then (when a device row or a status deadline changed since)
    /// their progress and status rows; nil when a write since cannot be followed.
    func changes(since revision: Int64, of devices: [String]) async throws -> TrackingChanges? {
        let read = try await self.devices(since: revision, of: devices)
        guard read.structure <= revision else { return nil }
        let (progress, statuses) = read.devices.isEmpty && read.deadlines <= revision
            ? ([:], [:]) : try await progressAndStatuses(since: revision, of: devices)
        return TrackingChanges(
            devices: read.devices, progress: progress, statuses: statuses, tails: read.tails, lastSequence: read.lastSequence,
            acceptedFixes: read.acceptedFixes)
    }

    /// What one read of the device rows holds besides: the tenant's marks, of the same snapshot.
    struct DeviceRead {
        var devices: [DeviceState] = []
        var tails: [String: TrackingState.DeviceTail] = [:]
        /// The revision of the last write catching up cannot follow (0: none).
        var structure: Int64 = 0
        /// The revision of the last status deadlines (0: none).
        var deadlines: Int64 = 0
        /// The accepted fixes' counter (0: none yet).
        var acceptedFixes: Int64 = 0
        /// The event log's last sequence, or the retention mark past it: the counter every event
        /// write numbers from (one row, where the log's own maximum looks into every month
        /// partition; migration v15 started it where the log was).
        var lastSequence: Int64 = 0
    }

    /// Device rows written after `revision` (nil: all), and of each, when its last fix arrived and
    /// its accepted fix before that (what SQLite's store reads per device), with the tenant's marks,
    /// in one statement: the rows, their tails and the marks are of one snapshot.
    func devices(since revision: Int64?, of ids: [String]? = nil) async throws -> DeviceRead {
        // `m` is the marks' one row; `p` is the accepted fix before the last one, found by its key
        // (all NULL when there is none, or retention deleted it); `d` is NULL when no device row changed.
        let rows = try await connection.query("""
            SELECT m.structure, m.deadlines, m.accepted, m.last_sequence, d.*
            FROM (SELECT coalesce(max(last) FILTER (WHERE feed = \(Self.structureFeed)), 0) AS structure,
                         coalesce(max(last) FILTER (WHERE feed = \(Self.deadlinesFeed)), 0) AS deadlines,
                         coalesce(max(last) FILTER (WHERE feed = \(Self.acceptedFeed)), 0) AS accepted,
                         greatest(coalesce(max(last) FILTER (WHERE feed = \(PostgresTrackingStore.eventFeed)), 0),
                                  coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant)), 0)) AS last_sequence
                  FROM feed_counter WHERE tenant = \(tenant)) m
            LEFT JOIN LATERAL (
                SELECT d.id, d.last_fix, d.last_accepted_ordinal, f.received_at, \(unescaped: Self.previousFixColumns)
                FROM device d
                LEFT JOIN location_fix f ON f.tenant = d.tenant AND f.device_id = d.id AND f.timestamp = d.last_fix_at
                LEFT JOIN location_fix p ON p.tenant = d.tenant AND p.device_id = d.id AND p.timestamp = d.previous_fix_at AND NOT p.late
                WHERE d.tenant = \(tenant) AND (\(revision == nil) OR d.revision > \(revision ?? 0))
                  AND (\(ids == nil) OR d.id = ANY(\(ids ?? [])))) d ON true
            """, logger: logger)
        var read = DeviceRead()
        for try await (structure, deadlines, accepted, lastSequence, id, lastFix, ordinal, receivedAt, timestamp, latitude, longitude, accuracy, speed, course, altitude, vertical, attributes)
            in rows.decode((Int64, Int64, Int64, Int64, String?, String?, Int64?, Int64?, Int64?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, String?).self) {
            (read.structure, read.deadlines, read.acceptedFixes, read.lastSequence) = (structure, deadlines, accepted, lastSequence)
            guard let id, let ordinal else { continue }
            let fix = try lastFix.map { try JSONColumn.value(StoredFix.self, $0, table: "device", id: id).fix }
            read.devices.append(DeviceState(id: id, lastFix: fix, lastAcceptedOrdinal: ordinal))
            guard let receivedAt else { continue }
            var before: LocationFix?
            if let timestamp, let latitude, let longitude, let accuracy {
                before = try PostgresTrackingRows.fix((timestamp, latitude, longitude, accuracy, speed, course, altitude, vertical, attributes))
            }
            read.tails[id] = .init(receivedAt: Instant(microseconds: receivedAt), previous: before)
        }
        return read
    }

    /// `p`'s fix columns, named apart from `f`'s.
    static let previousFixColumns = PostgresTrackingRows.fixColumns.split(separator: ", ").map { "p.\($0)" }.joined(separator: ", ")

    /// Progress and status rows written after `revision` (nil: all), in one statement (`kind` says which).
    func progressAndStatuses(since revision: Int64?, of devices: [String]? = nil) async throws -> ([ProgressKey: SubscriptionProgress], [ProgressKey: DeviceStatus]) {
        var progress: [ProgressKey: SubscriptionProgress] = [:]
        var statuses: [ProgressKey: DeviceStatus] = [:]
        for try await (kind, subscriptionId, deviceId, text, offline, stopped, offlineAt, stoppedAt, followsLastFix) in try await connection.query("""
            SELECT 'progress', subscription_id, device_id, progress, false, false, NULL::int8, NULL::int8, false FROM subscription_progress
            WHERE tenant = \(tenant) AND (\(revision == nil) OR revision > \(revision ?? 0)) AND (\(devices == nil) OR device_id = ANY(\(devices ?? [])))
            UNION ALL
            SELECT 'status', subscription_id, device_id, NULL, offline, stopped, offline_at, stopped_at, follows_last_fix FROM device_status
            WHERE tenant = \(tenant) AND (\(revision == nil) OR revision > \(revision ?? 0)) AND (\(devices == nil) OR device_id = ANY(\(devices ?? [])))
            """, logger: logger).decode((String, String, String, String?, Bool, Bool, Int64?, Int64?, Bool).self) {
            let key = ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)
            if kind == "progress" {
                progress[key] = try JSONColumn.value(StoredProgress.self, text ?? "", table: "subscription_progress", id: "\(subscriptionId)/\(deviceId)").progress
            } else {
                statuses[key] = DeviceStatus(
                    offline: offline, stopped: stopped, offlineAt: offlineAt.map(Instant.init(microseconds:)),
                    stoppedAt: stoppedAt.map(Instant.init(microseconds:)), followsLastFix: followsLastFix)
            }
        }
        return (progress, statuses)
    }
}
