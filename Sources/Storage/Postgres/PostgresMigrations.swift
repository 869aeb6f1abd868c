import Foundation
import Logging
import PostgresNIO
import Timeline

/// The PostgreSQL schema, one named step at a time, beside SQLite's (`Migrations`): every table's
/// key starts with the tenant (a distributed PostgreSQL can shard by it), times are `timestamptz`,
/// annotations carry a PostGIS `geography(Point)` with a GiST index, and gap-free numbers come from
/// counter rows updated in the writing transaction (a `SEQUENCE` leaves holes on rollback).
/// `properties` is the canonical JSON text SQLite keeps too: `jsonb` would reorder its keys and
/// refuse `\u0000`, and SQL reads it only as text (a property column's rows are found by `strpos`).
///
/// Instances starting together migrate one at a time: each step runs in a transaction that first
/// takes a transaction-scoped advisory lock, then skips the step if another instance applied it.
enum PostgresMigrations {
    /// The advisory lock key of migrations (any constant; ASCII "meridian" as a number).
    static let lockKey: Int64 = 0x6D65_7269_6469_616E

    /// One step: its statements, then (for the few that depend on the data or the date) Swift code
    /// in the same transaction.
    struct Step: Sendable {
        let name: String
        let sql: [String]
        var then: (@Sendable (PostgresConnection, Logger) async throws -> Void)?

        init(_ name: String, _ sql: [String], then: (@Sendable (PostgresConnection, Logger) async throws -> Void)? = nil) {
            (self.name, self.sql, self.then) = (name, sql, then)
        }
    }

    static let steps: [Step] = [
        Step("v1: tenants, feed counters, annotations with PostGIS", [
            "CREATE EXTENSION IF NOT EXISTS postgis",
            """
            CREATE TABLE feed_counter (
                tenant text NOT NULL, feed text NOT NULL, last bigint NOT NULL,
                PRIMARY KEY (tenant, feed))
            """,
            """
            CREATE TABLE annotation (
                tenant text NOT NULL, id uuid NOT NULL, external_id text,
                latitude double precision NOT NULL, longitude double precision NOT NULL,
                location geography(Point, 4326) NOT NULL,
                title text, subtitle text, kind text, clustering_identifier text,
                display_priority integer NOT NULL,
                properties text NOT NULL,
                version integer NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
                PRIMARY KEY (tenant, id), UNIQUE (tenant, external_id))
            """,
            "CREATE INDEX annotation_location ON annotation USING gist (location)",
            "CREATE INDEX annotation_longitude_latitude ON annotation (tenant, longitude, latitude)",
            """
            CREATE TABLE annotation_tombstone (
                tenant text NOT NULL, id uuid NOT NULL, version integer NOT NULL, deleted_at timestamptz NOT NULL,
                PRIMARY KEY (tenant, id))
            """,
            """
            CREATE TABLE annotation_change (
                tenant text NOT NULL, sequence bigint NOT NULL, kind text NOT NULL, annotation_id uuid NOT NULL,
                version integer NOT NULL, at timestamptz NOT NULL,
                PRIMARY KEY (tenant, sequence))
            """,
            """
            CREATE TABLE idempotency_key (
                tenant text NOT NULL, key text NOT NULL, fingerprint text NOT NULL, annotation_id uuid NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (tenant, key))
            """,
            "CREATE INDEX idempotency_key_created_at ON idempotency_key (tenant, created_at)",
        ]),
        Step("v2: API keys", [
            // Looked up by id alone (ids are 64 random bits); small, so a reference table under Citus.
            """
            CREATE TABLE api_key (
                tenant text NOT NULL, id text NOT NULL, role text NOT NULL, name text,
                salt bytea NOT NULL, hash bytea NOT NULL, created_at timestamptz NOT NULL, revoked_at timestamptz,
                PRIMARY KEY (tenant, id))
            """,
            "CREATE UNIQUE INDEX api_key_id ON api_key (id)",
        ]),
        Step("v3: tracking", [
            // Times are integer Unix microseconds (as on SQLite: fixes are told apart to the
            // microsecond); fixes, progress and subscriptions as the same JSON SQLite keeps.
            """
            CREATE TABLE device (
                tenant text NOT NULL, id text NOT NULL, last_fix text, last_fix_at bigint, last_accepted_ordinal bigint NOT NULL,
                PRIMARY KEY (tenant, id))
            """,
            """
            CREATE TABLE location_fix (
                tenant text NOT NULL, device_id text NOT NULL, timestamp bigint NOT NULL,
                latitude double precision NOT NULL, longitude double precision NOT NULL, horizontal_accuracy double precision NOT NULL,
                speed double precision, course double precision, altitude double precision, vertical_accuracy double precision,
                received_at bigint NOT NULL, late boolean NOT NULL,
                PRIMARY KEY (tenant, device_id, timestamp))
            """,
            """
            CREATE TABLE subscription (
                tenant text NOT NULL, id text NOT NULL, definition text NOT NULL, created_at bigint NOT NULL,
                accepted_fixes_before bigint NOT NULL, deleted_at bigint,
                PRIMARY KEY (tenant, id))
            """,
            """
            CREATE TABLE subscription_progress (
                tenant text NOT NULL, subscription_id text NOT NULL, device_id text NOT NULL, progress text NOT NULL,
                PRIMARY KEY (tenant, subscription_id, device_id))
            """,
            """
            CREATE TABLE tracking_event (
                tenant text NOT NULL, sequence bigint NOT NULL, id text NOT NULL, subscription_id text NOT NULL, device_id text NOT NULL,
                kind text NOT NULL, reason text, location text NOT NULL, previous_location text,
                occurred_at bigint NOT NULL, recorded_at bigint NOT NULL, interpolated boolean NOT NULL,
                subscription_name text, subscription_properties text,
                PRIMARY KEY (tenant, sequence))
            """,
            "CREATE INDEX tracking_event_subscription ON tracking_event (tenant, subscription_id, sequence)",
        ]),
        Step("v4: webhooks", [
            // The claim (lease_owner, lease_until) says which instance delivers the webhook now.
            """
            CREATE TABLE webhook (
                tenant text NOT NULL, id text NOT NULL, url text NOT NULL, subscription_ids text, secret text NOT NULL,
                retired_secrets text NOT NULL, state text NOT NULL, disabled_reason text, cursor bigint NOT NULL, epoch bigint NOT NULL,
                created_at bigint NOT NULL, updated_at bigint NOT NULL, lease_owner text, lease_until bigint,
                PRIMARY KEY (tenant, id))
            """,
            // Attempt ids only order the log (holes are harmless here, unlike in the feeds).
            """
            CREATE TABLE webhook_delivery (
                tenant text NOT NULL, webhook_id text NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY,
                sequence bigint NOT NULL, event_id text NOT NULL, attempt integer NOT NULL, at bigint NOT NULL,
                status_code integer, error text, latency_milliseconds double precision NOT NULL, outcome text NOT NULL,
                PRIMARY KEY (tenant, webhook_id, id))
            """,
        ]),
        Step("v5: ingest filters", [
            // A tenant's ingest filters, the same JSON SQLite keeps (no row: every rule off).
            "CREATE TABLE ingest_filters (tenant text PRIMARY KEY, settings text NOT NULL)",
        ]),
        Step("v6: fix attributes", [
            // A fix's free attributes as canonical JSON text, read back exactly; NULL when it has none.
            "ALTER TABLE location_fix ADD COLUMN attributes text",
        ]),
        Step("v7: device registry: profiles, groups, erased events", [
            // A profile's and a group's content is one JSON definition ({name, properties, groups, ingestFilters}).
            """
            CREATE TABLE device_profile (
                tenant text NOT NULL, id text NOT NULL, definition text NOT NULL, version bigint NOT NULL, updated_at bigint NOT NULL,
                PRIMARY KEY (tenant, id))
            """,
            """
            CREATE TABLE device_group (
                tenant text NOT NULL, name text NOT NULL, definition text NOT NULL, version bigint NOT NULL, updated_at bigint NOT NULL,
                PRIMARY KEY (tenant, name))
            """,
            // An erased event keeps its sequence, id and subscription; the rest is blanked.
            "ALTER TABLE tracking_event ADD COLUMN erased boolean NOT NULL DEFAULT false",
            "CREATE INDEX tracking_event_device ON tracking_event (tenant, device_id)",
        ]),
        Step("v8: status timers: device status and its deadlines", [
            // Where a status subscription stands with a device; offline_at and stopped_at are its
            // pending deadlines (Unix microseconds, NULL: none), committed with the state that set them.
            """
            CREATE TABLE device_status (
                tenant text NOT NULL, subscription_id text NOT NULL, device_id text NOT NULL,
                offline boolean NOT NULL, stopped boolean NOT NULL, offline_at bigint, stopped_at bigint,
                PRIMARY KEY (tenant, subscription_id, device_id))
            """,
            "CREATE INDEX device_status_device ON device_status (tenant, device_id)",
        ]),
        Step("v9: visit events", [
            // A visitArrival's or visitDeparture's stay, the same JSON SQLite keeps; NULL for other events.
            "ALTER TABLE tracking_event ADD COLUMN visit text",
        ]),
        Step("v10: retention: per-tenant settings and marks", [
            // A tenant's own retention (seconds; NULL: the server's default) and what was deleted:
            // the last event sequence (the log starts after it) and the horizon fixes were swept to (Unix µs).
            """
            CREATE TABLE retention (
                tenant text PRIMARY KEY, keep_fixes bigint, keep_events bigint,
                events_through bigint NOT NULL DEFAULT 0, fixes_before bigint)
            """,
        ]),
        Step("v11: status: offline deadlines that follow the last fix", [
            // True: offline_at is the device's last fix + offlineAfter, derived when loading (ingest
            // does not rewrite the row when only that deadline moves); false: offline_at as stored.
            "ALTER TABLE device_status ADD COLUMN follows_last_fix boolean NOT NULL DEFAULT false",
        ]),
        Step("v12: tracking rows carry the revision that wrote them", [
            // The tenant's tracking revision whose commit wrote the row: another instance catches
            // up by reading the rows above the revision it holds instead of reloading the tenant.
            "ALTER TABLE device ADD COLUMN revision bigint NOT NULL DEFAULT 0",
            "ALTER TABLE subscription_progress ADD COLUMN revision bigint NOT NULL DEFAULT 0",
            "ALTER TABLE device_status ADD COLUMN revision bigint NOT NULL DEFAULT 0",
            "CREATE INDEX device_revision ON device (tenant, revision)",
            "CREATE INDEX subscription_progress_revision ON subscription_progress (tenant, revision)",
            "CREATE INDEX device_status_revision ON device_status (tenant, revision)",
        ]),
        Step("v13: fixes and events in month partitions", PostgresHistory.tables.flatMap { table in [
            // The table as it was, kept until its rows are copied; its key and indexes renamed out of the way.
            "ALTER TABLE \(table.parent) RENAME TO \(table.parent)_v12",
            "ALTER TABLE \(table.parent)_v12 RENAME CONSTRAINT \(table.parent)_pkey TO \(table.parent)_v12_pkey",
            "CREATE TABLE \(table.parent) (LIKE \(table.parent)_v12 INCLUDING DEFAULTS) PARTITION BY RANGE (\(table.column))",
            "CREATE TABLE \(table.defaultPartition) PARTITION OF \(table.parent) DEFAULT",
        ] } + [
            "DROP INDEX tracking_event_subscription",
            "DROP INDEX tracking_event_device",
        ], then: { connection, logger in
            // Months from the oldest row (at most `monthsBack`) to those ahead, then the rows, then the keys and indexes.
            let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
            var first = PostgresHistory.Month(containing: now)
            for table in PostgresHistory.tables {
                for try await oldest in try await connection.query(PostgresQuery(unsafeSQL: "SELECT min(\(table.column)) FROM \(table.parent)_v12"), logger: logger).decode(Int64?.self) {
                    if let oldest { first = min(first, PostgresHistory.Month(containing: Instant(microseconds: oldest))) }
                }
            }
            first = max(first, PostgresHistory.Month(containing: now).advanced(by: -PostgresHistory.monthsBack))
            try await PostgresHistory.prepare(connection, now: now, from: first, logger: logger)
            for table in PostgresHistory.tables {
                try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table.parent) SELECT * FROM \(table.parent)_v12"), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table.parent)_v12"), logger: logger)
            }
            // A partitioned table's key holds its partition key: an event's sequence is unique per
            // tenant by the counter that issues it, no longer by the index.
            for statement in [
                "ALTER TABLE location_fix ADD PRIMARY KEY (tenant, device_id, timestamp)",
                "ALTER TABLE tracking_event ADD PRIMARY KEY (tenant, sequence, recorded_at)",
                "CREATE INDEX tracking_event_subscription ON tracking_event (tenant, subscription_id, sequence)",
                "CREATE INDEX tracking_event_device ON tracking_event (tenant, device_id)",
                "ANALYZE location_fix",
                "ANALYZE tracking_event",
            ] { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }),
        Step("v14: device rows name their accepted fix before the last", [
            // A catch-up or a load reads that fix by its key. Found by `ORDER BY timestamp DESC
            // LIMIT 1` over the month partitions, it was planned as a sort of all the device's
            // fixes of the month whenever that month's partition had no statistics yet.
            "ALTER TABLE device ADD COLUMN previous_fix_at bigint",
            "ANALYZE location_fix",
            """
            UPDATE device d SET previous_fix_at = (
                SELECT max(timestamp) FROM location_fix
                WHERE tenant = d.tenant AND device_id = d.id AND timestamp < d.last_fix_at AND NOT late)
            WHERE last_fix_at IS NOT NULL
            """,
        ]),
        Step("v15: ingest locks devices, numbered from counters at commit", [
            // An ingest adds to the event log's and the accepted fixes' counters in its last
            // statement: each tenant's counters start where its rows are.
            """
            INSERT INTO feed_counter (tenant, feed, last)
            SELECT tenant, 'events', max(sequence) FROM (
                SELECT tenant, max(sequence) AS sequence FROM tracking_event GROUP BY tenant
                UNION ALL SELECT tenant, events_through FROM retention) AS ends
            GROUP BY tenant
            ON CONFLICT (tenant, feed) DO UPDATE SET last = greatest(feed_counter.last, excluded.last)
            """,
            """
            INSERT INTO feed_counter (tenant, feed, last)
            SELECT tenant, 'tracking-accepted', max(last_accepted_ordinal) FROM device GROUP BY tenant
            ON CONFLICT (tenant, feed) DO UPDATE SET last = greatest(feed_counter.last, excluded.last)
            """,
            // A batch reads back the progress and status rows of its devices only.
            "CREATE INDEX subscription_progress_device ON subscription_progress (tenant, device_id, revision)",
            trackingChangesV15,
        ]),
        Step("v16: a batch's changes read by key, lock keys in one function", [
            PostgresTrackingTransaction.lockKeyFunction,
            PostgresTrackingTransaction.changesFunction,
        ]),
    ]

    /// Applies every step the database lacks, in order; safe to run from several instances at once.
    /// - Parameter count: how many steps to apply at most (a test builds an older database).
    static func migrate(_ client: PostgresClient, logger: Logger, steps count: Int? = nil) async throws {
        for step in steps.prefix(count ?? steps.count) {
            try await client.withTransaction(logger: logger) { connection in
                // The lock first: two `CREATE … IF NOT EXISTS` at once can still collide in PostgreSQL.
                // Another instance's migration may take longer than the connections' lock_timeout.
                try await connection.query("SET LOCAL lock_timeout = 0", logger: logger)
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS meridian_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())", logger: logger)
                let applied = try await connection.query("SELECT 1 FROM meridian_migration WHERE name = \(step.name)", logger: logger)
                for try await _ in applied { return }
                for statement in step.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await step.then?(connection, logger)
                try await connection.query("INSERT INTO meridian_migration (name) VALUES (\(step.name))", logger: logger)
            }
        }
        guard count == nil else { return }
        // A newer binary migrated it: this one would read and write rows by older rules.
        var unknown: [String] = []
        for try await name in try await client.query("SELECT name FROM meridian_migration ORDER BY name", logger: logger).decode(String.self)
        where !steps.contains(where: { $0.name == name }) { unknown.append(name) }
        if !unknown.isEmpty { throw NewerDatabase(steps: unknown) }
    }

    /// The database holds steps of a newer Meridian: an older binary refuses it rather than read
    /// and write its rows by older rules (upgrade every instance, then start them).
    struct NewerDatabase: Error, CustomStringConvertible {
        var steps: [String]
        var description: String {
            "the database was migrated by a newer meridian (\(steps.joined(separator: ", "))); run that version or a later one on every instance"
        }
    }
}
