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
        let devices = try await devices(since: revision)
        return TrackingChanges(
            devices: devices.filter { $0.id != StoredProfile.ordinalFloorRow }, progress: try await progress(since: revision),
            statuses: try await statuses(since: revision), tails: try await tails(of: devices), lastSequence: try await lastSequence())
    }

    /// The revision this transaction's rows carry: the one its commit makes.
    var writtenRevision: Int64 { revision + 1 }

    /// Device rows written after `revision` (nil: all).
    func devices(since revision: Int64?) async throws -> [DeviceState] {
        var devices: [DeviceState] = []
        for try await (id, lastFix, ordinal) in try await connection.query("""
            SELECT id, last_fix, last_accepted_ordinal FROM device
            WHERE tenant = \(tenant) AND (\(revision == nil) OR revision > \(revision ?? 0))
            """, logger: logger).decode((String, String?, Int64).self) {
            let fix = try lastFix.map { try JSONColumn.value(StoredFix.self, $0, table: "device", id: id).fix }
            devices.append(DeviceState(id: id, lastFix: fix, lastAcceptedOrdinal: ordinal))
        }
        return devices
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

    /// The event log's last sequence, or the retention mark past it.
    func lastSequence() async throws -> Int64 {
        for try await last in try await connection.query("""
            SELECT greatest(coalesce((SELECT max(sequence) FROM tracking_event WHERE tenant = \(tenant)), 0),
                            coalesce((SELECT events_through FROM retention WHERE tenant = \(tenant)), 0))
            """, logger: logger).decode(Int64.self) { return last }
        return 0
    }
}
