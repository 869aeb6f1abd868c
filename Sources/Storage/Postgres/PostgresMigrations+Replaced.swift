import Foundation

/// Migration steps' SQL that later steps replaced, kept as those steps ran it (a step's text never
/// changes once released: a database records a step by name and never runs it again).
extension PostgresMigrations {
    /// `meridian_tracking_changes` as v15 created it; v16 replaced it with
    /// ``PostgresTrackingTransaction/changesFunction``.
    static let trackingChangesV15 = """
        CREATE FUNCTION meridian_tracking_changes(tenant_id text, device_ids text[], since bigint, locking boolean)
        RETURNS TABLE (row_kind text, t1 text, t2 text, t3 text, n1 bigint, n2 bigint, n3 bigint, n4 bigint,
                       f1 float8, f2 float8, f3 float8, f4 float8, f5 float8, f6 float8, f7 float8, b1 boolean, b2 boolean, b3 boolean)
        LANGUAGE plpgsql VOLATILE AS $function$
        #variable_conflict use_column
        DECLARE
            marks record;
            changed text[];
            written boolean := false;
            after bigint := coalesce(since, -1);  -- NULL: everything (a load)
        BEGIN
            IF locking THEN
                -- The tenant's lock shared, then the devices' in key order (no two ingests wait in a circle).
                PERFORM pg_advisory_xact_lock_shared(hashtextextended('tracking ' || tenant_id, 0));
                PERFORM pg_advisory_xact_lock(k.key)
                FROM (SELECT DISTINCT hashtextextended('device ' || tenant_id || ' ' || d, 0) AS key FROM unnest(device_ids) AS d ORDER BY 1) AS k;
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
            IF since IS NULL OR marks.structure <= since THEN
                -- The devices written since: all of them (a catch-up of the tenant, a load), or
                -- those of a batch that changed, found by key first (most often none).
                changed := CASE WHEN device_ids IS NULL THEN NULL ELSE ARRAY(
                    SELECT id FROM device WHERE tenant = tenant_id AND id = ANY(device_ids) AND revision > after) END;
                IF changed IS NULL OR cardinality(changed) > 0 THEN
                    -- Planned for its values at every call, as what follows: a plan kept for the
                    -- connection, not knowing how few rows changed, scanned months of fixes.
                    PERFORM set_config('plan_cache_mode', 'force_custom_plan', true);
                    -- `p` is the accepted fix before the last one, found by its key (NULL when there is none, or retention deleted it).
                    RETURN QUERY
                    SELECT 'device', d.id, d.last_fix, p.attributes, d.last_accepted_ordinal, f.received_at, p.timestamp, NULL::bigint,
                           p.latitude, p.longitude, p.horizontal_accuracy, p.speed, p.course, p.altitude, p.vertical_accuracy,
                           NULL::boolean, NULL::boolean, NULL::boolean
                    FROM device d
                    LEFT JOIN location_fix f ON f.tenant = d.tenant AND f.device_id = d.id AND f.timestamp = d.last_fix_at
                    LEFT JOIN location_fix p ON p.tenant = d.tenant AND p.device_id = d.id AND p.timestamp = d.previous_fix_at AND NOT p.late
                    WHERE d.tenant = tenant_id AND d.revision > after AND (changed IS NULL OR d.id = ANY(changed));
                    written := FOUND;
                END IF;
                -- Status deadlines change status rows without their device row.
                IF written OR marks.deadlines > after THEN
                    PERFORM set_config('plan_cache_mode', 'force_custom_plan', true);
                    RETURN QUERY
                    SELECT 'progress', subscription_id, device_id, progress, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           NULL::boolean, NULL::boolean, NULL::boolean
                    FROM subscription_progress
                    WHERE tenant = tenant_id AND revision > after AND (device_ids IS NULL OR device_id = ANY(device_ids));
                    RETURN QUERY
                    SELECT 'status', subscription_id, device_id, NULL::text, offline_at, stopped_at, NULL::bigint, NULL::bigint,
                           NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8,
                           offline, stopped, follows_last_fix
                    FROM device_status
                    WHERE tenant = tenant_id AND revision > after AND (device_ids IS NULL OR device_id = ANY(device_ids));
                END IF;
            END IF;
            IF locking THEN
                -- The rest of the ingest's transaction runs the prepared rows statement: planned once per connection.
                PERFORM set_config('plan_cache_mode', 'force_generic_plan', true);
            END IF;
        END
        $function$
        """
}
