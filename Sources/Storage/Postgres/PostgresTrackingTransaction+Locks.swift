import Logging
import PostgresNIO
import Timeline

/// The tracking locks: the tenant's, taken exclusively by every write but ingest and shared by
/// ingest, and one per device, taken by the ingest that carries it. They are transaction-scoped
/// advisory locks keyed by a hash of a name: keys of two tenants or devices may meet, which makes
/// them wait for each other, never wrong.
extension PostgresTrackingTransaction {
    static func tenantLockName(_ tenant: TenantID) -> String { "tracking \(tenant)" }
    static func deviceLockName(_ tenant: TenantID, _ device: String) -> String { "device \(tenant) \(device)" }

    /// Takes the tenant's tracking lock exclusively: every ingest holding it shared ends first.
    static func lockTenant(_ tenant: TenantID, on connection: PostgresConnection, logger: Logger) async throws {
        // Its row read, so a lock timeout is this statement's error (not the next one's "transaction aborted").
        for try await _ in try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(tenantLockName(tenant)), 0))", logger: logger) {}
    }

    /// Takes the tenant's lock shared, then the locks of `devices` in key order, in one statement
    /// (transactions that lock some of the same devices never wait for each other in a circle).
    func lock(_ devices: [String]) async throws {
        for try await _ in try await connection.query("""
            SELECT CASE WHEN k.shared THEN pg_advisory_xact_lock_shared(k.key) ELSE pg_advisory_xact_lock(k.key) END
            FROM (SELECT hashtextextended(\(Self.tenantLockName(store.tenant)), 0) AS key, true AS shared
                  UNION
                  SELECT hashtextextended(name, 0), false FROM unnest(\(devices.map { Self.deviceLockName(store.tenant, $0) })) AS name
                  ORDER BY shared DESC, key) AS k
            """, logger: logger) {}
    }

    /// The counters (or their revision) when this transaction wrote and no rows statement took them: in a statement of no rows.
    func countIfWritten() async throws {
        if wrote, committedRevision == nil { try await write(TrackingRows()) }
    }
}
