import Foundation
import PostgresNIO
@testable import Storage
import Testing
import TestSupport

/// Migration v16 replaced `meridian_tracking_changes`: for every kind of input the new function
/// answers the rows v15's did (v15's text, kept as it ran, installed beside it under another
/// name), and its lock keys are the names v15 hashed, so instances on either side of the upgrade
/// exclude each other.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs MERIDIAN_POSTGRES_URL: make test starts a throw-away PostgreSQL"), .serialized)
struct PostgresTrackingChangesTests {
    @Test func theLockKeysAreTheNamesV15Hashed() async throws {
        let database = try await PostgresDatabase.open(try #require(PostgresLocation(try await TestEngine.postgres.freshPlace())))
        let rows = try await database.client.query("""
            SELECT meridian_tracking_lock('acme') = hashtextextended('tracking acme', 0),
                   meridian_tracking_lock('acme', 'phone 7') = hashtextextended('device acme phone 7', 0),
                   meridian_tracking_lock('acme') <> meridian_tracking_lock('acme', '')
            """)
        for try await (tenant, device, apart) in rows.decode((Bool, Bool, Bool).self) {
            #expect(tenant && device && apart)
        }
        await database.close()
    }

    @Test func theBatchPathAnswersTheRowsV15Did() async throws {
        let database = try await PostgresDatabase.open(try #require(PostgresLocation(try await TestEngine.postgres.freshPlace())))
        let client = database.client
        try await client.query(PostgresQuery(unsafeSQL: PostgresMigrations.trackingChangesV15
            .replacingOccurrences(of: "FUNCTION meridian_tracking_changes(", with: "FUNCTION meridian_tracking_changes_v15(")))
        // d1: last and previous fixes; d2: its previous deleted (retention); d3: its previous late;
        // d4: no fix yet; d5: written before revision 5; another tenant's d1.
        let fix = "INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, speed, course, altitude, vertical_accuracy, received_at, late, attributes) VALUES "
        try await client.query(PostgresQuery(unsafeSQL: fix + """
            ('t', 'd1', 1000, 1.5, 2.5, 5, 3, 90, 12, 4, 1001, false, '{"a":1}'),
            ('t', 'd1', 2000, 1.6, 2.6, 6, NULL, NULL, NULL, NULL, 2001, false, NULL),
            ('t', 'd2', 3000, 3.5, 4.5, 7, NULL, NULL, NULL, NULL, 3001, false, NULL),
            ('t', 'd3', 500, 5.5, 6.5, 8, NULL, NULL, NULL, NULL, 501, true, NULL),
            ('t', 'd3', 4000, 5.6, 6.6, 9, 1, 2, 3, 4, 4001, false, NULL),
            ('t', 'd5', 6000, 7.5, 8.5, 10, NULL, NULL, NULL, NULL, 6001, false, NULL),
            ('u', 'd1', 7000, 9.5, 9.5, 11, NULL, NULL, NULL, NULL, 7001, false, NULL)
            """))
        try await client.query("""
            INSERT INTO device (tenant, id, last_fix, last_fix_at, last_accepted_ordinal, revision, previous_fix_at) VALUES
            ('t', 'd1', '{"last":1}', 2000, 2, 7, 1000), ('t', 'd2', '{"last":2}', 3000, 3, 8, 2500),
            ('t', 'd3', '{"last":3}', 4000, 4, 9, 500), ('t', 'd4', NULL, NULL, 0, 10, NULL),
            ('t', 'd5', '{"last":5}', 6000, 5, 3, NULL), ('u', 'd1', '{"last":9}', 7000, 1, 7, NULL)
            """)
        try await client.query("""
            INSERT INTO subscription_progress (tenant, subscription_id, device_id, progress, revision) VALUES
            ('t', 's1', 'd1', '{"p":1}', 7), ('t', 's1', 'd5', '{"p":5}', 3), ('t', 's2', 'd3', '{"p":3}', 9), ('u', 's1', 'd1', '{"p":9}', 7)
            """)
        try await client.query("""
            INSERT INTO device_status (tenant, subscription_id, device_id, offline, stopped, offline_at, stopped_at, follows_last_fix, revision) VALUES
            ('t', 's1', 'd1', true, false, 100, NULL, true, 7), ('t', 's1', 'd4', false, true, NULL, 200, false, 6)
            """)
        try await client.query("""
            INSERT INTO feed_counter (tenant, feed, last) VALUES ('t', 'tracking', 10), ('t', 'events', 40),
            ('t', 'tracking-accepted', 5), ('t', 'tracking-structure', 4), ('t', 'tracking-deadlines', 6)
            """)
        func rows(_ function: String, _ since: Int64?, _ devices: [String]?, _ locking: Bool) async throws -> [String] {
            var found: [String] = []
            let query = try await client.query(PostgresQuery(unsafeSQL: "SELECT f::text FROM \(function)($1, $2, $3, $4) AS f", binds: {
                var binds = PostgresBindings()
                binds.append("t")
                binds.append(devices)
                binds.append(since)
                binds.append(locking)
                return binds
            }()))
            for try await row in query.decode(String.self) { found.append(row) }
            return found.sorted()
        }
        let cases: [(Int64?, [String]?, Bool)] = [
            (nil, nil, false), (0, nil, false), (5, nil, false), (8, nil, false),
            (5, ["d1", "d2", "d3", "d4", "d5", "nowhere"], true), (8, ["d1", "d4"], true), (0, ["d5"], true),
            (5, [], true), (20, ["d1"], true), (3, ["d1", "d2"], true),  // 3: a structure mark after it
        ]
        for (since, devices, locking) in cases {
            let old = try await rows("meridian_tracking_changes_v15", since, devices, locking)
            let new = try await rows("meridian_tracking_changes", since, devices, locking)
            #expect(new == old, "since \(String(describing: since)), devices \(String(describing: devices))")
            #expect(!old.isEmpty)
        }
        // The batch path did read rows: d1's last fix's arrival and its previous fix.
        let batch = try await rows("meridian_tracking_changes", 5, ["d1"], true)
        #expect(batch.contains { $0.contains("d1") && $0.contains("2001") && $0.contains("1000") }, "\(batch)")
        await database.close()
    }
}
