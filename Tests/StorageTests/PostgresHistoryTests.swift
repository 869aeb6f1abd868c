import Foundation
import Logging
import MapGeometry
import PostgresNIO
@testable import Storage
import Synchronization
import Testing
import TestSupport
import Timeline
import Tracking

/// Fixes and events in month partitions on PostgreSQL: a month goes whole once every tenant in it
/// has hidden it, a month another tenant keeps loses the others' hidden rows one by one, and a
/// database migrated from v12 keeps every row, each in its month.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs MERIDIAN_POSTGRES_URL: make test starts a throw-away PostgreSQL"), .serialized)
struct PostgresHistoryTests {
    typealias Month = PostgresHistory.Month
    static let minute: Int64 = 60_000_000
    static let day: Int64 = 86_400_000_000

    final class Clock: Sendable {
        let now = Mutex(Instant(microseconds: 0))
    }

    /// A tenant's tracker with a clock the test sets, subscribed to every fix 100 m from the last.
    static func tracker(_ engine: any StorageEngine, _ tenant: TenantID, clock: Clock) async throws -> Tracker {
        let ids = UUIDv7Generator()
        let tracker = Tracker(writer: try await engine.tracking(tenant: tenant).openWriter { _, _ in }, now: { clock.now.withLock { $0 } },
                              newID: { ids.next().description })
        _ = try await tracker.subscribe { _, createdAt in
            Subscription(id: "moves", maxLocationAge: nil, rule: .significantChange(SignificantChangeRule(distanceFilter: 100, minimumInterval: 60)), createdAt: createdAt)
        }
        return tracker
    }

    /// Four fixes of `device` 10 minutes and about 1 km apart from `start`, received (and their
    /// events recorded) a minute after the last.
    static func ingest(_ tracker: Tracker, _ clock: Clock, _ device: String, from start: Instant) async throws {
        let fixes = (0..<4).map { i in
            LocationFix(coordinate: Coordinate(latitude: 45.5 + Double(i) * 0.01, longitude: -122.6),
                        timestamp: Instant(microseconds: start.microseconds + Int64(i) * 10 * minute), horizontalAccuracy: 5)
        }
        clock.now.withLock { $0 = Instant(microseconds: start.microseconds + 31 * minute) }
        _ = try await tracker.ingest(deviceId: device, fixes: fixes)
    }

    /// How many rows `tenant` has in `table`, hidden or not.
    static func rows(_ engine: PostgresEngine, _ table: PostgresHistory.Table, _ tenant: TenantID) async throws -> Int64 {
        for try await count in try await engine.database.client.query(
            PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table.parent) WHERE tenant = '\(tenant)'")).decode(Int64.self) { return count }
        return 0
    }

    static func months(_ engine: PostgresEngine, _ table: PostgresHistory.Table) async throws -> [Month] {
        try await engine.database.withConnection { try await PostgresHistory.months(of: table, $0, logger: engine.database.logger) }
    }

    @Test func aMonthGoesWhenEveryTenantHidItAndAKeptMonthLosesTheOthersRowsOneByOne() async throws {
        let engine = try #require(try await DatabasePlace.open(try await TestEngine.postgres.freshPlace()) as? PostgresEngine)
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let current = Month(containing: now)
        let (m4, m3, m2, m1) = (current.advanced(by: -4), current.advanced(by: -3), current.advanced(by: -2), current.advanced(by: -1))
        try await engine.database.transaction { try await PostgresHistory.prepare($0, now: now, from: m4, logger: engine.database.logger) }
        #expect(try await Self.months(engine, PostgresHistory.fixes) == (-4...2).map { current.advanced(by: $0) })
        func mid(_ month: Month) -> Instant { Instant(microseconds: month.start.microseconds + 10 * Self.day) }
        // In this month whatever the day (the trackers' clocks, not the wall's, bound a fix's time).
        let recent = Instant(microseconds: current.start.microseconds + Self.day)

        // a: rows three months ago, two months ago and now; b: three months ago and now.
        let b = TenantID("b")!
        let (clockA, clockB) = (Clock(), Clock())
        clockA.now.withLock { $0 = mid(m3) }
        clockB.now.withLock { $0 = mid(m3) }
        let (a, bTracker) = (try await Self.tracker(engine, .default, clock: clockA), try await Self.tracker(engine, b, clock: clockB))
        for start in [mid(m3), mid(m2), recent] { try await Self.ingest(a, clockA, "car", from: start) }
        for start in [mid(m3), recent] { try await Self.ingest(bTracker, clockB, "van", from: start) }
        let eventsOfA = try await a.log.events(subscriptionId: nil, after: 0, limit: 100).count
        #expect(eventsOfA == 12)

        // a hides everything before last month; b nothing yet.
        let (retainA, retainB) = (engine.retention(tenant: .default), engine.retention(tenant: b))
        try await retainA.markFixes(before: m1.start)
        try await retainA.markEvents(recordedBefore: m1.start)
        let dropped = try await engine.dropHiddenHistory(now: now)
        // Two months ago (a's only) and the empty month before; three months ago is b's too; last month is empty and kept.
        #expect(Set(dropped) == Set(PostgresHistory.tables.flatMap { [$0.partition(m4), $0.partition(m2)] }))
        for table in PostgresHistory.tables {
            #expect(try await Self.months(engine, table) == [m3, m1] + (0...2).map { current.advanced(by: $0) })
        }
        // a's rows of three months ago go one by one (b keeps that month), the recent ones stay.
        var fixesDeleted = 0
        while let (count, next) = try await retainA.deleteFixes(before: m1.start, from: "", limit: 3, devices: 5) {
            fixesDeleted += count
            if next == nil { break }
        }
        #expect(fixesDeleted == 4)
        var eventsDeleted = 0
        while let count = try await retainA.deleteEvents(recordedBefore: m1.start, limit: 3), count > 0 { eventsDeleted += count }
        #expect(eventsDeleted == 4)
        #expect(try await Self.rows(engine, PostgresHistory.fixes, .default) == 4)
        #expect(try await Self.rows(engine, PostgresHistory.events, .default) == 4)
        #expect(try await a.log.fixes(deviceId: "car", from: nil, to: nil, limit: 100).map(\.timestamp.microseconds)
                == (0..<4).map { recent.microseconds + Int64($0) * 10 * Self.minute })
        // The log lost a prefix: it reads on from the mark, in order and without holes.
        #expect(try await a.log.events(subscriptionId: nil, after: 0, limit: 100).map(\.sequence) == [9, 10, 11, 12])
        #expect(try await retainA.marks().eventsThrough == 8)
        #expect(try await Self.rows(engine, PostgresHistory.fixes, b) == 8)
        #expect(try await bTracker.log.events(subscriptionId: nil, after: 0, limit: 100).count == 8)

        // b hides three months ago too: that month goes whole.
        try await retainB.markFixes(before: m2.start)
        try await retainB.markEvents(recordedBefore: m2.start)
        #expect(Set(try await engine.dropHiddenHistory(now: now)) == Set(PostgresHistory.tables.map { $0.partition(m3) }))
        #expect(try await Self.rows(engine, PostgresHistory.fixes, b) == 4)
        #expect(try await Self.rows(engine, PostgresHistory.events, b) == 4)
        #expect(try await bTracker.log.events(subscriptionId: nil, after: 0, limit: 100).map(\.sequence) == [5, 6, 7, 8])
        // Nothing left to hide or drop: a second pass drops nothing.
        #expect(try await engine.dropHiddenHistory(now: now).isEmpty)
        await engine.close()
    }

    /// Hidden rows of the month the mark falls in stay until the month goes, unread.
    @Test func rowsOfTheMarksMonthStayUnreadUntilTheirMonthGoes() async throws {
        let engine = try #require(try await DatabasePlace.open(try await TestEngine.postgres.freshPlace()) as? PostgresEngine)
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let clock = Clock()
        let start = Instant(microseconds: Month(containing: now).start.microseconds + Self.day)
        clock.now.withLock { $0 = start }
        let tracker = try await Self.tracker(engine, .default, clock: clock)
        try await Self.ingest(tracker, clock, "car", from: start)
        let store = engine.retention(tenant: .default)
        let mark = Instant(microseconds: start.microseconds + 15 * Self.minute)
        try await store.markFixes(before: mark)
        #expect(try await store.deleteFixes(before: mark, from: "", limit: 10, devices: 10)?.deleted == 0)
        #expect(try await Self.rows(engine, PostgresHistory.fixes, .default) == 4)
        #expect(try await tracker.log.fixes(deviceId: "car", from: nil, to: nil, limit: 10).count == 2)
        await engine.close()
    }

    @Test func aV12DatabaseKeepsEveryRowEachInItsMonth() async throws {
        let location = try #require(PostgresLocation(try await TestEngine.postgres.freshPlace()))
        let client = PostgresClient(configuration: location.configuration)
        let running = Task { await client.run() }
        try await PostgresMigrations.migrate(client, logger: Logger(label: "test"), steps: 12)
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let current = Month(containing: now)
        // Two months ago, now, and 2019 (older than the months made: the default partition).
        let times = [current.advanced(by: -2).start.microseconds + Self.day, current.start.microseconds + Self.minute, 1_546_300_800_000_000 + Self.day]
        for (index, time) in times.enumerated() {
            try await client.query("""
                INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, received_at, late)
                VALUES ('default', 'car', \(time), 45.5, -122.6, 5, \(time), false)
                """)
            try await client.query("""
                INSERT INTO tracking_event (tenant, sequence, id, subscription_id, device_id, kind, location, occurred_at, recorded_at, interpolated)
                VALUES ('default', \(Int64(index + 1)), \("e\(index)"), 's', 'car', 'significantChange', '{}', \(time), \(time), false)
                """)
        }
        running.cancel()
        _ = await running.ends(within: PostgresDatabase.poolStopLimit)

        let database = try await PostgresDatabase.open(location)
        #expect(try await database.appliedMigrations() == PostgresMigrations.steps.map(\.name))
        for table in PostgresHistory.tables {
            var placed: [String: Int64] = [:]
            for try await (partition, count) in try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT tableoid::regclass::text, count(*) FROM \(table.parent) GROUP BY 1
                """)).decode((String, Int64).self) { placed[partition] = count }
            #expect(placed == [table.partition(current.advanced(by: -2)): 1, table.partition(current): 1, table.defaultPartition: 1], "\(table.parent)")
        }
        // Keys and indexes are back: a repeated fix is refused as before, the event log's indexes are there.
        await #expect(throws: (any Error).self) {
            try await database.client.query("""
                INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, received_at, late)
                VALUES ('default', 'car', \(times[1]), 45.5, -122.6, 5, \(times[1]), false)
                """)
        }
        var indexes: Set<String> = []
        for try await name in try await database.client.query("SELECT indexname::text FROM pg_indexes WHERE tablename = 'tracking_event'").decode(String.self) {
            indexes.insert(name)
        }
        #expect(indexes == ["tracking_event_pkey", "tracking_event_subscription", "tracking_event_device"])

        // A month whose rows reached the default partition (its partition was missing) takes them when it is made.
        let later = current.advanced(by: PostgresHistory.monthsAhead + 1)
        try await database.client.query("""
            INSERT INTO location_fix (tenant, device_id, timestamp, latitude, longitude, horizontal_accuracy, received_at, late)
            VALUES ('default', 'car', \(later.start.microseconds), 45.5, -122.6, 5, \(later.start.microseconds), false)
            """)
        try await PostgresHistory.prepare(database, now: current.next.start)
        var partition = ""
        for try await name in try await database.client.query("""
            SELECT tableoid::regclass::text FROM location_fix WHERE timestamp = \(later.start.microseconds)
            """).decode(String.self) { partition = name }
        #expect(partition == PostgresHistory.fixes.partition(later))
        await database.close()
    }
}
