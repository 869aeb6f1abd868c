import PostgresNIO
import Timeline
import Tracking

// The device registry's rows on PostgreSQL: the same as SQLiteTrackingStore+Registry.

extension PostgresTrackingTransaction {
    /// The tenant's profiles and group records.
    func registry() async throws -> ([DeviceProfile], [DeviceGroup]) {
        let tenant = store.tenant.description
        var profiles: [DeviceProfile] = []
        for try await (id, definition, version, updatedAt) in try await connection.query("""
            SELECT id, definition, version, updated_at FROM device_profile WHERE tenant = \(tenant)
            """, logger: store.logger).decode((String, String, Int64, Int64).self) {
            profiles.append(try JSONColumn.value(StoredProfile.self, definition, table: "device_profile", id: id).profile(id: id, version: version, updatedAt: updatedAt))
        }
        var groups: [DeviceGroup] = []
        for try await (name, definition, version, updatedAt) in try await connection.query("""
            SELECT name, definition, version, updated_at FROM device_group WHERE tenant = \(tenant)
            """, logger: store.logger).decode((String, String, Int64, Int64).self) {
            groups.append(try JSONColumn.value(StoredProfile.self, definition, table: "device_group", id: name).group(name: name, version: version, updatedAt: updatedAt))
        }
        return (profiles, groups)
    }

    func commit(_ plan: ProfilePlan) async throws {
        let tenant = store.tenant.description, profile = plan.profile
        try await connection.query("""
            INSERT INTO device_profile (tenant, id, definition, version, updated_at)
            VALUES (\(tenant), \(profile.id), \(try JSONColumn.text(StoredProfile(profile))), \(profile.version), \(profile.updatedAt.microseconds))
            ON CONFLICT (tenant, id) DO UPDATE SET definition = excluded.definition, version = excluded.version, updated_at = excluded.updated_at
            """, logger: store.logger)
        if !plan.dropped.isEmpty {
            try await connection.query("""
                DELETE FROM subscription_progress WHERE tenant = \(tenant) AND device_id = \(profile.id)
                  AND subscription_id = ANY(\(plan.dropped.map(\.subscriptionId)))
                """, logger: store.logger)
        }
        try await write(TrackingRows(progress: plan.started))
    }

    func save(_ group: DeviceGroup?, named name: String) async throws {
        let tenant = store.tenant.description
        guard let group else {
            try await connection.query("DELETE FROM device_group WHERE tenant = \(tenant) AND name = \(name)", logger: store.logger)
            return
        }
        try await connection.query("""
            INSERT INTO device_group (tenant, name, definition, version, updated_at)
            VALUES (\(tenant), \(name), \(try JSONColumn.text(StoredProfile(group))), \(group.version), \(group.updatedAt.microseconds))
            ON CONFLICT (tenant, name) DO UPDATE SET definition = excluded.definition, version = excluded.version, updated_at = excluded.updated_at
            """, logger: store.logger)
    }

    /// The device's rows deleted and the events about it blanked (their sequence, id and subscription stay).
    func commit(_ erasure: DeviceErasure) async throws {
        let tenant = store.tenant.description, id = erasure.deviceId, logger = store.logger
        try await connection.query("DELETE FROM device_profile WHERE tenant = \(tenant) AND id = \(id)", logger: logger)
        try await connection.query("DELETE FROM location_fix WHERE tenant = \(tenant) AND device_id = \(id)", logger: logger)
        try await connection.query("DELETE FROM device WHERE tenant = \(tenant) AND id = \(id)", logger: logger)
        try await connection.query("DELETE FROM subscription_progress WHERE tenant = \(tenant) AND device_id = \(id)", logger: logger)
        try await connection.query("DELETE FROM device_status WHERE tenant = \(tenant) AND device_id = \(id)", logger: logger)
        try await connection.query("""
            INSERT INTO device (tenant, id, last_fix, last_fix_at, last_accepted_ordinal)
            VALUES (\(tenant), \(StoredProfile.ordinalFloorRow), NULL, NULL, \(erasure.acceptedFixes))
            ON CONFLICT (tenant, id) DO UPDATE SET last_accepted_ordinal = greatest(device.last_accepted_ordinal, excluded.last_accepted_ordinal)
            """, logger: logger)
        try await connection.query("""
            UPDATE tracking_event SET erased = true, device_id = '', kind = '', reason = NULL, location = '', previous_location = NULL,
              occurred_at = 0, interpolated = false, subscription_name = NULL, subscription_properties = NULL, visit = NULL
            WHERE tenant = \(tenant) AND device_id = \(id)
            """, logger: logger)
    }
}
