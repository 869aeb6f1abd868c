import Logging
import PostgresNIO
import Timeline

/// The tracking locks: the tenant's, taken exclusively by every write but ingest and shared by
/// ingest, and one per device, taken by the ingest that carries it. They are transaction-scoped
/// advisory locks keyed by one SQL function, `meridian_tracking_lock` (v16), a hash of a name,
/// which the function reading a batch's changes (``read(since:of:locking:)``) calls too: keys of
/// two tenants or devices may meet, which makes them wait for each other, never wrong.
extension PostgresTrackingTransaction {
    /// Takes the tenant's tracking lock exclusively: every ingest holding it shared ends first.
    static func lockTenant(_ tenant: TenantID, on connection: PostgresConnection, logger: Logger) async throws {
        // Its row read, so a lock timeout is this statement's error (not the next one's "transaction aborted").
        for try await _ in try await connection.query("SELECT pg_advisory_xact_lock(meridian_tracking_lock(\(tenant.description)))", logger: logger) {}
    }

    /// The counters (or their revision) when this transaction wrote and no rows statement took them: in a statement of no rows.
    func countIfWritten() async throws {
        if wrote, committedRevision == nil { try await write(TrackingRows()) }
    }
}
