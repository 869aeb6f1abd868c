import Logging
import PostgresNIO
import Timeline
import Tracking
import WireJSON

/// What a tenant's tracking rows hold since a revision, read by one function in the database
/// (migration v15, replaced by v16), in one round trip: the tenant's marks, the device rows
/// written since with their tails, then (when a device row or a status deadline changed since)
/// the progress and status rows written since. An ingest's call first takes the tenant's tracking
/// lock shared and its devices' locks; each statement of a `VOLATILE` function reads a snapshot of
/// its own, so what it reads after the locks holds every commit they waited for. A batch's rows
/// are read by key (on one instance none changed): the device, progress and status rows planned
/// once per connection, as the ingest's rows statement after the call is (`plan_cache_mode`, set
/// for the transaction), each device's fixes planned for their values; a load's or a tenant's
/// catch-up joins its rows, planned for its values.
extension PostgresTrackingTransaction {
    /// The key of the tenant's tracking lock, or of one of its devices' (v16; the names v15 hashed).
    static let lockKeyFunction = """
        CREATE FUNCTION meridian_tracking_lock(tenant_id text, device_id text DEFAULT NULL) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN hashtextextended(CASE WHEN device_id IS NULL THEN 'tracking ' || tenant_id
                                     ELSE 'device ' || tenant_id || ' ' || device_id END, 0)
        """

    static let changesFunction = """
        CREATE OR REPLACE FUNCTION meridian_tracking_changes(tenant_id text, device_ids text[], since bigint, locking boolean)
        RETURNS TABLE (row_kind text, t1 text, t2 text, t3 text, n1 bigint, n2 bigint, n3 bigint, n4 bigint,
                       f1 float8, f2 float8, f3 float8, f4 float8, f5 float8, f6 float8, f7 float8, b1 boolean, b2 boolean, b3 boolean)
        LANGUAGE plpgsql VOLATILE AS $function$
        #variable_conflict use_column
        DECLARE
            marks record;
            d record;  -- a batch's device
            p record;  -- its fixes
            written boolean := false;
            after bigint := coalesce(since, -1);  -- NULL: everything (a load)
        BEGIN
            IF locking THEN
                -- The tenant's lock shared, then the devices' in key order (no two ingests wait in a circle).
                PERFORM pg_advisory_xact_lock_shared(meridian_tracking_lock(tenant_id));
                PERFORM pg_advisory_xact_lock(k.key)
                FROM (SELECT DISTINCT meridian_tracking_lock(tenant_id, u.device) AS key FROM unnest(device_ids) AS u(device)
                      WHERE u.device IS NOT NULL ORDER BY 1) AS k;
                -- The rest of the ingest's transaction is planned once per connection: a batch's
                -- reads below, then the prepared rows statement.
                PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
            END IF;
            SELECT coalesce(max(last) FILTER (WHERE feed = 'tracking-structure'), 0) AS structure,
                   coalesce(max(last) FILTER (WHERE feed = 'tracking-deadlines'), 0) AS deadlines,
                   coalesce(max(last) FILTER (WHERE feed = 'tracking-accepted'), 0) AS accepted,
                   greatest(coalesce(max(last) FILTER (WHERE feed = 'events'), 0),
                            coalesce((SELECT events_through FROM retention WHERE tenant = tenant_id), 0)) AS last_sequence
            INTO marks FROM feed_counter WHERE tenant = tenant_id;
            RETURN QUERY SELECT 'marks', NULL::text, NULL::text, NULL::text, marks.structure, marks.deadlines, marks.accepted, marks.last_sequence,
                                NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                                NULL::boolean, NULL::boolean, NULL::boolean;
            IF since IS NOT NULL AND marks.structure > since THEN
                RETURN;  -- a write came between that catching up cannot follow
            END IF;
            IF device_ids IS NULL THEN
                -- Every device written since (a load, a catch-up of the tenant), joined to its
                -- fixes: planned for its values at every call (a plan kept for the connection,
                -- not knowing how few rows changed, scanned months of fixes).
                PERFORM set_config('plan_cache_mode', 'force_custom_plan', true);
                -- `p` is the accepted fix before the last one, found by its key (NULL when there is none, or retention deleted it).
                RETURN QUERY
                SELECT 'device', d.id, d.last_fix, p.attributes, d.last_accepted_ordinal, f.received_at, p.timestamp, NULL::bigint,
                       p.latitude, p.longitude, p.horizontal_accuracy, p.speed, p.course, p.altitude, p.vertical_accuracy,
                       NULL::boolean, NULL::boolean, NULL::boolean
                FROM device d
                LEFT JOIN location_fix f ON f.tenant = d.tenant AND f.device_id = d.id AND f.timestamp = d.last_fix_at
                LEFT JOIN location_fix p ON p.tenant = d.tenant AND p.device_id = d.id AND p.timestamp = d.previous_fix_at AND NOT p.late
                WHERE d.tenant = tenant_id AND d.revision > after;
                written := FOUND;
                IF written OR marks.deadlines > after THEN
                    RETURN QUERY
                    SELECT 'progress', subscription_id, device_id, progress, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           NULL::boolean, NULL::boolean, NULL::boolean
                    FROM subscription_progress WHERE tenant = tenant_id AND revision > after;
                    RETURN QUERY
                    SELECT 'status', subscription_id, device_id, NULL::text, offline_at, stopped_at, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           offline, stopped, follows_last_fix
                    FROM device_status WHERE tenant = tenant_id AND revision > after;
                END IF;
                IF locking THEN
                    PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
                END IF;
            ELSE
                -- A batch's rows (on one instance none changed), read by key (planned once per
                -- connection when locking, as set above).
                FOR d IN SELECT id, last_fix, last_fix_at, previous_fix_at, last_accepted_ordinal FROM device
                         WHERE tenant = tenant_id AND id = ANY(device_ids) AND revision > after LOOP
                    written := true;
                    -- Its last fix and the accepted one before it, by key, in a plan for their
                    -- values that keeps one month's partition (a plan kept for the connection
                    -- opens every month as it starts: 0.45 ms a lookup; the join above, 0.4 ms to
                    -- plan; one plan for every device's keys, a scan of the month).
                    EXECUTE 'SELECT (SELECT received_at FROM location_fix WHERE tenant = $1 AND device_id = $2 AND timestamp = $3) AS received, p.*
                             FROM (SELECT) AS one LEFT JOIN (
                                 SELECT timestamp, latitude, longitude, horizontal_accuracy, speed, course, altitude, vertical_accuracy, attributes
                                 FROM location_fix WHERE tenant = $1 AND device_id = $2 AND timestamp = $4 AND NOT late) AS p ON true'
                    INTO p USING tenant_id, d.id, d.last_fix_at, d.previous_fix_at;
                    RETURN QUERY SELECT 'device', d.id, d.last_fix, p.attributes, d.last_accepted_ordinal, p.received, p.timestamp, NULL::bigint,
                                        p.latitude, p.longitude, p.horizontal_accuracy, p.speed, p.course, p.altitude, p.vertical_accuracy,
                                        NULL::boolean, NULL::boolean, NULL::boolean;
                END LOOP;
                -- Status deadlines change status rows without their device row.
                IF written OR marks.deadlines > after THEN
                    RETURN QUERY
                    SELECT 'progress', subscription_id, device_id, progress, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           NULL::boolean, NULL::boolean, NULL::boolean
                    FROM subscription_progress WHERE tenant = tenant_id AND device_id = ANY(device_ids) AND revision > after;
                    RETURN QUERY
                    SELECT 'status', subscription_id, device_id, NULL::text, offline_at, stopped_at, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           offline, stopped, follows_last_fix
                    FROM device_status WHERE tenant = tenant_id AND device_id = ANY(device_ids) AND revision > after;
                END IF;
            END IF;
        END
        $function$
        """

    /// What the tenant's rows hold since a revision, as the function reads them.
    struct Read {
        var changes = TrackingChanges.none
        /// The revision of the last write catching up cannot follow (0: none).
        var structure: Int64 = 0
    }

    /// Reads what changed since `revision` (nil: everything, as a load) of `devices` (nil: all),
    /// after taking the tenant's lock shared and the devices' locks when `locking`; the changes
    /// hold no progress or status rows when a write catching up cannot follow came since.
    func read(since revision: Int64?, of devices: [String]?, locking: Bool) async throws -> Read {
        var read = Read()
        let rows = try await connection.query("""
            SELECT * FROM meridian_tracking_changes(\(tenant), \(devices), \(revision), \(locking))
            """, logger: logger)
        for try await (kind, t1, t2, t3, n1, n2, n3, n4, f1, f2, f3, f4, f5, f6, f7, b1, b2, b3)
            in rows.decode((String, String?, String?, String?, Int64?, Int64?, Int64?, Int64?,
                            Double?, Double?, Double?, Double?, Double?, Double?, Double?, Bool?, Bool?, Bool?).self) {
            switch kind {
            case "marks":
                read.structure = n1 ?? 0
                read.changes.acceptedFixes = n3 ?? 0
                read.changes.lastSequence = n4 ?? 0
            case "device":
                guard let id = t1, let ordinal = n1 else { continue }
                let fix = try t2.map { try JSONColumn.value(StoredFix.self, $0, table: "device", id: id).fix }
                read.changes.devices.append(DeviceState(id: id, lastFix: fix, lastAcceptedOrdinal: ordinal))
                guard let receivedAt = n2 else { continue }
                var before: LocationFix?
                if let timestamp = n3, let latitude = f1, let longitude = f2, let accuracy = f3 {
                    before = try PostgresTrackingRows.fix((timestamp, latitude, longitude, accuracy, f4, f5, f6, f7, t3))
                }
                read.changes.tails[id] = .init(receivedAt: Instant(microseconds: receivedAt), previous: before)
            case "progress":
                guard let subscriptionId = t1, let deviceId = t2 else { continue }
                read.changes.progress[ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)] =
                    try JSONColumn.value(StoredProgress.self, t3 ?? "", table: "subscription_progress", id: "\(subscriptionId)/\(deviceId)").progress
            default:
                guard let subscriptionId = t1, let deviceId = t2 else { continue }
                read.changes.statuses[ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)] = DeviceStatus(
                    offline: b1 ?? false, stopped: b2 ?? false, offlineAt: n1.map(Instant.init(microseconds:)),
                    stoppedAt: n2.map(Instant.init(microseconds:)), followsLastFix: b3 ?? false)
            }
        }
        return read
    }
}
