import Logging
import PostgresNIO
import Synchronization
import Timeline
import Tracking
import WireJSON

/// The rows one tracking write stores: a group's fixes, events, progress, statuses and devices.
struct TrackingRows {
    var fixes: [(deviceId: String, receivedAt: Int64, stored: IngestPlan.StoredFix)] = []
    var events: [TrackingEvent] = []
    var progress: [ProgressKey: SubscriptionProgress] = [:]
    var statuses: [ProgressKey: DeviceStatus] = [:]
    /// At most one per device.
    var devices: [DeviceState] = []
}

extension TrackingRows {
    /// Per device of `devices`, the latest fix of `fixes` accepted before its last one (nil where
    /// the batch holds none: the stored row's last fix is then the one before), with its mask.
    var previousAcceptedInBatch: ([Int64], [Bool]) {
        var latest: [String: Int64] = [:]
        let lasts = Dictionary(devices.map { ($0.id, $0.lastFix?.timestamp.microseconds) }, uniquingKeysWith: { $1 })
        for fix in fixes where !fix.stored.late {
            let at = fix.stored.fix.timestamp.microseconds
            guard let last = lasts[fix.deviceId] ?? nil, at < last else { continue }
            latest[fix.deviceId] = max(latest[fix.deviceId] ?? .min, at)
        }
        let previous = devices.map { latest[$0.id] }
        return (previous.map { $0 ?? 0 }, previous.map { $0 == nil })
    }
}

/// A stored fix's key.
struct FixKey: Hashable {
    var deviceId: String
    var timestamp: Int64
}

extension PostgresTrackingTransaction {
    /// Writes `rows` in one statement (arrays unnested, each nullable column with a mask; an empty
    /// array writes nothing), so a lock is held for one round trip of writing, not one per table.
    /// A late fix meeting a stored instant is skipped; returns the fixes stored.
    ///
    /// When the transaction wrote, the same statement numbers from the tenant's counters and
    /// notifies: the revision (the first rows statement of a transaction takes the next one; every
    /// device, progress and status row carries it, ``changes(since:)``), the event log's sequences
    /// and the accepted fixes' ordinals (the plans' provisional numbers shifted, ``numbering``).
    /// The counter rows stay locked until `COMMIT`, so numbers follow commit order without gaps,
    /// while an ingest holds the tenant's counters for that last round trip only. They are locked
    /// in one order (revision, events, ordinals) by one `INSERT`, so two writers never wait in a circle.
    @discardableResult
    func write(_ rows: TrackingRows) async throws -> Set<FixKey> {
        let fixes = rows.fixes.map(\.stored.fix)
        func optional(_ value: KeyPath<LocationFix, Double?>) -> ([Double], [Bool]) {
            (fixes.map { $0[keyPath: value] ?? 0 }, fixes.map { $0[keyPath: value] == nil })
        }
        let (speeds, noSpeed) = optional(\.speed), (courses, noCourse) = optional(\.course)
        let (altitudes, noAltitude) = optional(\.altitude), (verticals, noVertical) = optional(\.verticalAccuracy)
        let attributes = fixes.map { $0.attributes.isEmpty ? "" : JSONValue.canonicalText(of: $0.attributes) }

        let events = rows.events
        func nullable(_ values: [String?]) -> ([String], [Bool]) { (values.map { $0 ?? "" }, values.map { $0 == nil }) }
        let (reasons, noReason) = nullable(events.map(\.reason))
        let (previous, noPrevious) = nullable(events.map { $0.previousLocation.map { StoredFix($0).text } })
        let (names, noName) = nullable(events.map(\.subscriptionName))
        let (properties, noProperties) = nullable(events.map {
            $0.subscriptionProperties.isEmpty ? nil : JSONValue.canonicalText(of: $0.subscriptionProperties)
        })
        let (visits, noVisit) = nullable(events.map { StoredVisit.text($0.visit) })

        let progress = Array(rows.progress)
        let statuses = Array(rows.statuses)
        let offlineAt = statuses.map { $0.value.offlineAt?.microseconds ?? 0 }, noOfflineAt = statuses.map { $0.value.offlineAt == nil }
        let stoppedAt = statuses.map { $0.value.stoppedAt?.microseconds ?? 0 }, noStoppedAt = statuses.map { $0.value.stoppedAt == nil }

        let devices = rows.devices
        let lastFixes = devices.map { $0.lastFix.map { StoredFix($0).text } ?? "" }, noLastFix = devices.map { $0.lastFix == nil }
        let (previousAt, noPreviousAt) = rows.previousAcceptedInBatch

        let counters = try counters(for: rows)
        let known = taken.withLock { $0 }
        let structural = wrote && structural.withLock { $0 }
        let deadlines = wrote && self.deadlines.withLock { $0 }
        let tenantID = store.tenant
        let query: PostgresQuery = """
            WITH counters AS (
                INSERT INTO feed_counter (tenant, feed, last)
                SELECT \(tenant), feed, first FROM unnest(\(counters.feeds), \(counters.firsts)) WITH ORDINALITY AS c(feed, first, n) ORDER BY n
                ON CONFLICT (tenant, feed) DO UPDATE
                SET last = feed_counter.last + CASE excluded.feed WHEN \(PostgresTrackingStore.revisionFeed) THEN 1
                                                                 WHEN \(PostgresTrackingStore.eventFeed) THEN \(Int64(events.count))
                                                                 ELSE \(counters.accepted) END
                RETURNING feed, last, CASE WHEN feed <> \(Self.acceptedFeed)
                                           THEN pg_notify(\(PostgresFeeds.channel), feed || ' ' || \(tenantID.description) || ' ' || last) END),
            revision AS (SELECT coalesce((SELECT last FROM counters WHERE feed = \(PostgresTrackingStore.revisionFeed)), \(known ?? 0)) AS last),
            marks AS (
                INSERT INTO feed_counter (tenant, feed, last)
                SELECT \(tenant), feed, (SELECT last FROM revision)
                FROM unnest(ARRAY[\(structural ? Self.structureFeed : "")::text, \(deadlines ? Self.deadlinesFeed : "")::text]) AS feed WHERE feed <> ''
                ON CONFLICT (tenant, feed) DO UPDATE SET last = excluded.last),
            fixes AS (
                INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, speed, course, altitude,
                                          vertical_accuracy, received_at, late, attributes)
                SELECT \(tenant), device_id, timestamp, latitude, longitude, horizontal_accuracy,
                       CASE WHEN no_speed THEN NULL ELSE speed END, CASE WHEN no_course THEN NULL ELSE course END,
                       CASE WHEN no_altitude THEN NULL ELSE altitude END, CASE WHEN no_vertical THEN NULL ELSE vertical END,
                       received_at, late, NULLIF(attributes, '')
                FROM unnest(\(rows.fixes.map(\.deviceId)), \(fixes.map(\.timestamp.microseconds)), \(fixes.map(\.coordinate.latitude)),
                            \(fixes.map(\.coordinate.longitude)), \(fixes.map(\.horizontalAccuracy)), \(speeds), \(noSpeed), \(courses), \(noCourse),
                            \(altitudes), \(noAltitude), \(verticals), \(noVertical), \(rows.fixes.map(\.receivedAt)), \(rows.fixes.map(\.stored.late)),
                            \(attributes))
                    AS u(device_id, timestamp, latitude, longitude, horizontal_accuracy, speed, no_speed, course, no_course, altitude, no_altitude,
                         vertical, no_vertical, received_at, late, attributes)
                ON CONFLICT DO NOTHING RETURNING device_id, timestamp),
            events AS (
                INSERT INTO tracking_event (tenant, sequence, id, subscription_id, device_id, kind, reason, location, previous_location,
                                            occurred_at, recorded_at, interpolated, subscription_name, subscription_properties, visit)
                SELECT \(tenant), (SELECT last FROM counters WHERE feed = \(PostgresTrackingStore.eventFeed)) - \(Int64(events.count)) + n,
                       id, subscription_id, device_id, kind, CASE WHEN no_reason THEN NULL ELSE reason END, location,
                       CASE WHEN no_previous THEN NULL ELSE previous END, occurred_at, recorded_at, interpolated,
                       CASE WHEN no_name THEN NULL ELSE name END, CASE WHEN no_properties THEN NULL ELSE properties END,
                       CASE WHEN no_visit THEN NULL ELSE visit END
                FROM unnest(\(events.map(\.id)), \(events.map(\.subscriptionId)), \(events.map(\.deviceId)),
                            \(events.map(\.kind.rawValue)), \(reasons), \(noReason), \(events.map { StoredFix($0.location).text }), \(previous), \(noPrevious),
                            \(events.map(\.occurredAt.microseconds)), \(events.map(\.recordedAt.microseconds)), \(events.map(\.interpolated)),
                            \(names), \(noName), \(properties), \(noProperties), \(visits), \(noVisit))
                    WITH ORDINALITY AS u(id, subscription_id, device_id, kind, reason, no_reason, location, previous, no_previous,
                         occurred_at, recorded_at, interpolated, name, no_name, properties, no_properties, visit, no_visit, n)),
            progress AS (
                INSERT INTO subscription_progress (tenant, subscription_id, device_id, progress, revision)
                SELECT \(tenant), subscription_id, device_id, progress, (SELECT last FROM revision)
                FROM unnest(\(progress.map(\.key.subscriptionId)), \(progress.map(\.key.deviceId)), \(progress.map { StoredProgress($0.value).text }))
                    AS u(subscription_id, device_id, progress)
                ON CONFLICT (tenant, subscription_id, device_id) DO UPDATE SET progress = excluded.progress, revision = excluded.revision),
            statuses AS (
                INSERT INTO device_status (tenant, subscription_id, device_id, offline, stopped, offline_at, stopped_at, follows_last_fix, revision)
                SELECT \(tenant), subscription_id, device_id, offline, stopped,
                       CASE WHEN no_offline_at THEN NULL ELSE offline_at END, CASE WHEN no_stopped_at THEN NULL ELSE stopped_at END, follows_last_fix,
                       (SELECT last FROM revision)
                FROM unnest(\(statuses.map(\.key.subscriptionId)), \(statuses.map(\.key.deviceId)), \(statuses.map(\.value.offline)),
                            \(statuses.map(\.value.stopped)), \(offlineAt), \(noOfflineAt), \(stoppedAt), \(noStoppedAt), \(statuses.map(\.value.followsLastFix)))
                    AS u(subscription_id, device_id, offline, stopped, offline_at, no_offline_at, stopped_at, no_stopped_at, follows_last_fix)
                ON CONFLICT (tenant, subscription_id, device_id) DO UPDATE
                SET offline = excluded.offline, stopped = excluded.stopped, offline_at = excluded.offline_at, stopped_at = excluded.stopped_at,
                    follows_last_fix = excluded.follows_last_fix, revision = excluded.revision),
            devices AS (
                INSERT INTO device (tenant, id, last_fix, last_fix_at, last_accepted_ordinal, revision, previous_fix_at)
                SELECT \(tenant), id, CASE WHEN no_last_fix THEN NULL ELSE last_fix END, CASE WHEN no_last_fix THEN NULL ELSE last_fix_at END,
                       ordinal + coalesce((SELECT last FROM counters WHERE feed = \(Self.acceptedFeed)) - \(counters.lastOrdinal), 0),
                       (SELECT last FROM revision), CASE WHEN no_previous_at THEN NULL ELSE previous_at END
                FROM unnest(\(devices.map(\.id)), \(lastFixes), \(devices.map { $0.lastFix?.timestamp.microseconds ?? 0 }), \(noLastFix),
                            \(devices.map(\.lastAcceptedOrdinal)), \(previousAt), \(noPreviousAt))
                    AS u(id, last_fix, last_fix_at, no_last_fix, ordinal, previous_at, no_previous_at)
                -- The accepted fix before the new last: the batch's latest one before it, else the
                -- row's last (every accepted fix is newer than every fix stored before it).
                ON CONFLICT (tenant, id) DO UPDATE
                SET last_fix = excluded.last_fix, last_fix_at = excluded.last_fix_at, last_accepted_ordinal = excluded.last_accepted_ordinal,
                    revision = excluded.revision,
                    previous_fix_at = CASE WHEN excluded.last_fix_at IS DISTINCT FROM device.last_fix_at
                                           THEN coalesce(excluded.previous_fix_at, device.last_fix_at) ELSE device.previous_fix_at END)
            SELECT (SELECT last FROM revision), (SELECT last FROM counters WHERE feed = \(PostgresTrackingStore.eventFeed)),
                   (SELECT last FROM counters WHERE feed = \(Self.acceptedFeed)), f.device_id, f.timestamp
            FROM (SELECT) AS one LEFT JOIN fixes f ON true
            """
        let stored = try await connection.rows(of: query, preparedAs: TrackingRowsText.self, logger: logger)
        var inserted: Set<FixKey> = []
        var numbers: (revision: Int64?, event: Int64?, ordinal: Int64?) = (nil, nil, nil)
        for row in stored {
            let (revision, event, ordinal, deviceId, timestamp) = try row.decode((Int64?, Int64?, Int64?, String?, Int64?).self)
            numbers = (revision, event, ordinal)
            if let deviceId, let timestamp { inserted.insert(FixKey(deviceId: deviceId, timestamp: timestamp)) }
        }
        if wrote, let revision = numbers.revision, revision > 0 { taken.withLock { $0 = revision } }
        numbered.withLock { numbering in
            if let range = counters.events, let last = numbers.event { numbering.numberedEvents(range, last: last) }
            if let range = counters.ordinals, let last = numbers.ordinal { numbering.numberedOrdinals(range, last: last) }
        }
        return inserted
    }

    /// The counter rows a rows statement advances (in lock order), each with its first value should
    /// the tenant have none yet, and the provisional numbers it renumbers.
    struct Counters {
        var feeds: [String] = []
        var firsts: [Int64] = []
        var accepted: Int64 = 0
        /// The provisional ordinal of the statement's last accepted fix (0: none).
        var lastOrdinal: Int64 = 0
        var events: ClosedRange<Int64>?
        var ordinals: ClosedRange<Int64>?
    }

    /// What `rows` numbers: nothing when the transaction wrote nothing.
    private func counters(for rows: TrackingRows) throws -> Counters {
        var counters = Counters()
        guard wrote else { return counters }
        if taken.withLock({ $0 }) == nil {
            counters.feeds.append(PostgresTrackingStore.revisionFeed)
            counters.firsts.append(1)
        }
        if let first = rows.events.first?.sequence, let last = rows.events.last?.sequence {
            // A plan numbers its events one after another, and a group's plans each after the last.
            guard last - first + 1 == Int64(rows.events.count) else { throw StorageError.corruptRow(table: "tracking_event", id: "\(first)...\(last)") }
            counters.events = first...last
            counters.feeds.append(PostgresTrackingStore.eventFeed)
            counters.firsts.append(last)
        }
        counters.accepted = Int64(rows.fixes.lazy.filter { !$0.stored.late }.count)
        if counters.accepted > 0, let last = rows.devices.map(\.lastAcceptedOrdinal).max() {
            counters.lastOrdinal = last
            counters.ordinals = (last - counters.accepted + 1)...last
            counters.feeds.append(Self.acceptedFeed)
            counters.firsts.append(last)
        }
        return counters
    }
}
