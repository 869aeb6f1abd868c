import GRDB
import Timeline
import Tracking

// The device registry's rows on SQLite: profiles, group records, erasure.

extension SQLiteTrackingStore {
    /// The tenant's profiles and group records.
    static func registry(tenant: StatementArguments, in db: Database) throws -> ([DeviceProfile], [DeviceGroup]) {
        let profiles = try Row.fetchAll(db, sql: "SELECT id, definition, version, updatedAt FROM deviceProfile WHERE tenant = ?", arguments: tenant).map { row in
            let id: String = row["id"]
            return try JSONColumn.value(StoredProfile.self, row["definition"], table: "deviceProfile", id: id)
                .profile(id: id, version: row["version"], updatedAt: row["updatedAt"])
        }
        let groups = try Row.fetchAll(db, sql: "SELECT name, definition, version, updatedAt FROM deviceGroup WHERE tenant = ?", arguments: tenant).map { row in
            let name: String = row["name"]
            return try JSONColumn.value(StoredProfile.self, row["definition"], table: "deviceGroup", id: name)
                .group(name: name, version: row["version"], updatedAt: row["updatedAt"])
        }
        return (profiles, groups)
    }

    func commit(_ plan: ProfilePlan, in db: Database) throws {
        let profile = plan.profile
        try db.execute(
            sql: "INSERT OR REPLACE INTO deviceProfile (tenant, id, definition, version, updatedAt) VALUES (?, ?, ?, ?, ?)",
            arguments: [tenant.description, profile.id, try JSONColumn.text(StoredProfile(profile)), profile.version, profile.updatedAt.microseconds])
        for key in plan.dropped {
            try db.execute(sql: "DELETE FROM subscriptionProgress WHERE subscriptionId = ? AND deviceId = ?", arguments: [key.subscriptionId, key.deviceId])
        }
        try upsert(plan.started, in: db)
    }

    func save(_ group: DeviceGroup?, named name: String, in db: Database) throws {
        guard let group else {
            try db.execute(sql: "DELETE FROM deviceGroup WHERE tenant = ? AND name = ?", arguments: [tenant.description, name])
            return
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO deviceGroup (tenant, name, definition, version, updatedAt) VALUES (?, ?, ?, ?, ?)",
            arguments: [tenant.description, name, try JSONColumn.text(StoredProfile(group)), group.version, group.updatedAt.microseconds])
    }

    /// The device's rows deleted and the events about it blanked (their sequence, id and subscription stay).
    func commit(_ erasure: DeviceErasure, in db: Database) throws {
        let key: StatementArguments = [tenant.description, erasure.deviceId]
        try db.execute(sql: "DELETE FROM deviceProfile WHERE tenant = ? AND id = ?", arguments: key)
        try db.execute(sql: "DELETE FROM locationFix WHERE tenant = ? AND deviceId = ?", arguments: key)
        try db.execute(sql: "DELETE FROM device WHERE tenant = ? AND id = ?", arguments: key)
        try db.execute(sql: "DELETE FROM deviceStatus WHERE tenant = ? AND deviceId = ?", arguments: key)
        try db.execute(
            sql: "DELETE FROM subscriptionProgress WHERE deviceId = ? AND subscriptionId IN (SELECT id FROM subscription WHERE tenant = ?)",
            arguments: [erasure.deviceId, tenant.description])
        try db.execute(sql: """
            INSERT INTO device (tenant, id, lastFix, lastAcceptedOrdinal) VALUES (?, ?, NULL, ?)
            ON CONFLICT (tenant, id) DO UPDATE SET lastAcceptedOrdinal = max(lastAcceptedOrdinal, excluded.lastAcceptedOrdinal)
            """, arguments: [tenant.description, StoredProfile.ordinalFloorRow, erasure.acceptedFixes])
        try db.execute(sql: """
            UPDATE trackingEvent SET erased = 1, deviceId = '', kind = '', reason = NULL, location = '', previousLocation = NULL, occurredAt = 0,
              interpolated = 0, subscriptionName = NULL, subscriptionProperties = NULL, visit = NULL
            WHERE tenant = ? AND deviceId = ?
            """, arguments: key)
    }
}
