import Foundation
import MapGeometry
import Storage
import Testing
import TestSupport
import Timeline
import Tracking

/// The retention stores on each engine: expired fixes go in batches and only they; two instances
/// sweeping at once delete each row once (PostgreSQL: two engines on one database).
@Suite struct RetentionStoreTests {
    static let day: Int64 = 86_400_000_000

    /// `count` fixes of `device`, one a minute from `start`.
    static func ingest(_ tracker: Tracker, _ device: String, from start: Instant, count: Int) async throws {
        let fixes = (0..<count).map { i in
            LocationFix(coordinate: Coordinate(latitude: 45.5 + Double(i) * 1e-4, longitude: -122.6),
                        timestamp: Instant(microseconds: start.microseconds + Int64(i) * 60_000_000), horizontalAccuracy: 5)
        }
        _ = try await tracker.ingest(deviceId: device, fixes: fixes)
    }

    static func tracker(_ engine: any StorageEngine) async throws -> Tracker {
        let ids = UUIDv7Generator()
        return Tracker(writer: try await engine.tracking(tenant: .default).openWriter { _, _ in }, now: { Instant(secondsSince1970: Date().timeIntervalSince1970) },
                       newID: { ids.next().description })
    }

    @Test(arguments: TestEngine.available) func twoSweepsAtOnceDeleteEachExpiredFixOnceAndNothingElse(engine: TestEngine) async throws {
        let place = try await engine.freshPlace(persistent: true)
        defer { removeSQLiteFiles(place) }
        let first = try await DatabasePlace.open(place)
        // SQLite is one process's file; PostgreSQL is shared by instances: a second engine is a second instance.
        let twoInstances = PostgresLocation.isPostgres(place)
        let second = twoInstances ? try await DatabasePlace.open(place) : first
        let tracker = try await Self.tracker(first)
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let horizon = Instant(microseconds: now.microseconds - 30 * Self.day)
        // Ten days before the horizon's month: deleted row by row on both engines (PostgreSQL leaves
        // the horizon's month to its partition).
        let old = Instant(microseconds: Self.monthStart(horizon).microseconds - 10 * Self.day)
        for (device, count) in [("a", 23), ("b", 1), ("c", 17), ("d", 9)] { try await Self.ingest(tracker, device, from: old, count: count) }
        try await Self.ingest(tracker, "e", from: Instant(microseconds: now.microseconds - 3_600_000_000), count: 30)
        // A device with old fixes and fresh ones: only the old go.
        try await Self.ingest(tracker, "f", from: old, count: 5)
        try await Self.ingest(tracker, "f", from: Instant(microseconds: now.microseconds - 60_000_000), count: 1)
        try await first.retention(tenant: .default).markFixes(before: horizon)

        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for engine in [first, second] {
                group.addTask {
                    let store = engine.retention(tenant: .default)
                    var (device, total) = ("", 0)
                    while true {
                        guard let batch = try await store.deleteFixes(before: horizon, from: device, limit: 7, devices: 2) else {
                            try await Task.sleep(for: .milliseconds(1))  // the other instance holds the lock: try again
                            continue
                        }
                        let (deleted, next) = batch
                        #expect(deleted <= 7)
                        total += deleted
                        guard let next else { return total }
                        device = next
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == 23 + 1 + 17 + 9 + 5)
        // Behind the mark, whether deleted yet or not, nothing is read.
        for device in ["a", "b", "c", "d"] { #expect(try await tracker.log.fixes(deviceId: device, from: nil, to: nil, limit: 100).isEmpty) }
        #expect(try await tracker.log.fixes(deviceId: "e", from: nil, to: nil, limit: 100).count == 30)
        #expect(try await tracker.log.fixes(deviceId: "f", from: nil, to: nil, limit: 100).count == 1)
        #expect(try await first.retention(tenant: .default).marks() == RetentionMarks(eventsThrough: 0, fixesBefore: horizon))
        // The device's state keeps its last fix; a reload (a restart) reads it back.
        let reloaded = try await Self.tracker(second)
        #expect(try await reloaded.read { $0.devices["a"]?.lastFix?.timestamp } == Instant(microseconds: old.microseconds + 22 * 60_000_000))
        if twoInstances { await second.close() }
        await first.close()
    }

    /// The first microsecond of `instant`'s UTC month.
    static func monthStart(_ instant: Instant) -> Instant {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: Double(instant.microseconds) / 1e6)
        let start = calendar.date(from: calendar.dateComponents([.year, .month], from: date))!
        return Instant(microseconds: Int64(start.timeIntervalSince1970) * 1_000_000)
    }

    @Test(arguments: TestEngine.available) func settingsAreStoredPerTenant(engine: TestEngine) async throws {
        let storage = try await DatabasePlace.open(try await engine.freshPlace())
        let (one, two) = (storage.retention(tenant: .default), storage.retention(tenant: TenantID("two")!))
        try await one.setOverrides(RetentionPolicy(keepFixes: 60, keepEvents: nil))
        try await two.setOverrides(RetentionPolicy(keepFixes: nil, keepEvents: 120))
        try await one.setOverrides(RetentionPolicy(keepFixes: 90, keepEvents: nil))
        #expect(try await one.overrides() == RetentionPolicy(keepFixes: 90))
        #expect(try await two.overrides() == RetentionPolicy(keepEvents: 120))
        #expect(try await two.marks() == RetentionMarks())
        // No events: nothing to hide, nothing to delete.
        try await one.markEvents(recordedBefore: Instant(microseconds: Int64.max / 2))
        #expect(try await one.deleteEvents(recordedBefore: Instant(microseconds: Int64.max / 2), limit: 10) == 0)
        #expect(try await one.marks() == RetentionMarks())
        await storage.close()
    }
}
