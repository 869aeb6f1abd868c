import Foundation
import GRDB
import MapGeometry
import Testing
import Tracking
import WireJSON
@testable import Storage
import Timeline

/// The storage JSON of fixes and progress is written by hand; it must read back as JSONDecoder reads it.
@Suite struct TrackingRecordTests {
    static let fix = LocationFix(coordinate: Coordinate(latitude: -33.8688, longitude: 151.2093), timestamp: Instant(microseconds: 1_767_225_600_000_001),
                                 horizontalAccuracy: 4.5, speed: 0.1 + 0.2, course: nil, altitude: -12, verticalAccuracy: 1e-7)

    @Test func fixTextReadsBackExactly() throws {
        for fix in [Self.fix, LocationFix(coordinate: Coordinate(latitude: 0, longitude: -180), timestamp: Instant(microseconds: -5), horizontalAccuracy: 0)] {
            let text = StoredFix(fix).text
            #expect(try JSONDecoder().decode(StoredFix.self, from: Data(text.utf8)).fix == fix)
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
        }
    }

    @Test func progressTextReadsBackExactly() throws {
        let progress = [
            SubscriptionProgress(),
            SubscriptionProgress(lastEvaluated: Self.fix, lastNotified: Self.fix, inside: true, enteredAt: Instant(microseconds: 42), dwellNotified: true),
            SubscriptionProgress(lastEvaluated: Self.fix, inside: false),
            SubscriptionProgress(lastEvaluated: Self.fix, stay: Self.stay(arrived: false)),
            SubscriptionProgress(lastEvaluated: Self.fix, stay: Self.stay(arrived: true)),
        ]
        for value in progress {
            let text = StoredProgress(value).text
            #expect(try JSONDecoder().decode(StoredProgress.self, from: Data(text.utf8)).progress == value)
        }
    }

    @Test func stayTextSaysWhatJSONEncoderWrites() throws {
        for arrived in [false, true] {
            let stay = StoredStay(Self.stay(arrived: arrived))
            var json = JSONWriter()
            stay.write(to: &json)
            let written = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? NSDictionary
            let encoded = try JSONSerialization.jsonObject(with: Data(try JSONColumn.text(stay).utf8)) as? NSDictionary
            #expect(written != nil && written == encoded)
        }
    }

    /// A run of four noisy fixes around Sydney (a hull of several vertices, sums that are not whole).
    static func stay(arrived: Bool) -> StayRun {
        var run = StayRun(fix)
        for (k, (dlat, dlon)) in [(0.0001, 0.0), (0.0, 0.00013), (-0.00007, -0.00011)].enumerated() {
            let next = LocationFix(coordinate: Coordinate(latitude: fix.coordinate.latitude + dlat, longitude: fix.coordinate.longitude + dlon),
                                   timestamp: fix.timestamp.adding(seconds: Double(k + 1) * 10), horizontalAccuracy: 3.7 + Double(k))
            run = run.adding(next, radius: 100) ?? run
        }
        #expect(run.count == 4 && run.hull.vertices.count >= 3)
        run.arrived = arrived
        return run
    }
}

/// A row that does not map to a domain value is reported as corrupt, never read as something else.
@Suite struct CorruptTrackingRowTests {
    static func database(_ sql: String) throws -> SQLiteTrackingStore {
        let database = try MeridianDatabase.open(path: ":memory:")
        try database.writer.write { db in try db.execute(sql: sql) }
        return SQLiteTrackingStore(database: database)
    }

    @Test(arguments: [
        // An unknown rule type, a rule without its fields, a definition that is not JSON.
        (#"INSERT INTO subscription VALUES ('s1', '{"type":"teleport"}', 0, 0, NULL, 'default')"#, "subscription", "s1"),
        (#"INSERT INTO subscription VALUES ('s2', '{"type":"significantChange"}', 0, 0, NULL, 'default')"#, "subscription", "s2"),
        (#"INSERT INTO subscription VALUES ('s3', 'not json', 0, 0, NULL, 'default')"#, "subscription", "s3"),
        (#"INSERT INTO device VALUES ('default', 'd1', '{"la":1}', 1)"#, "device", "d1"),
        (#"INSERT INTO subscription VALUES ('s4', '{"type":"significantChange","distanceFilter":500,"minimumInterval":300}', 0, 0, NULL, 'default'); INSERT INTO subscriptionProgress VALUES ('s4', 'd2', '[]')"#, "subscriptionProgress", "s4/d2"),
    ])
    func loadingStateReportsTheRow(_ sql: String, _ table: String, _ id: String) throws {
        let store = try Self.database(sql)
        #expect(throws: StorageError.corruptRow(table: table, id: id)) { try store.loadState() }
    }

    @Test func anEventOfAnUnknownKindIsReportedWhenRead() async throws {
        let location = StoredFix(TrackingRecordTests.fix).text
        let store = try Self.database("""
            INSERT INTO trackingEvent VALUES ('default', 7, 'e7', 's1', 'd1', 'teleport', NULL, '\(location)', NULL, 0, 0, 0, NULL, NULL, 0, NULL)
            """)
        await #expect(throws: StorageError.corruptRow(table: "trackingEvent", id: "7")) {
            try await store.events(subscriptionId: nil, after: 0, limit: 10)
        }
    }
}
