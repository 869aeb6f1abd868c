public import Annotations
import Foundation
import GRDB
import MapGeometry
public import Tracking

/// ``TrackingStore`` on SQLite: an ingest (fixes, events, device, progress) or a subscription
/// change is one transaction, committed (in the WAL) before the call returns.
public struct SQLiteTrackingStore: TrackingStore {
    let database: MeridianDatabase

    public init(database: MeridianDatabase) {
        self.database = database
    }

    public func loadState() throws -> TrackingState {
        try database.writer.read { db in
            let subscriptions = try Row.fetchAll(db, sql: "SELECT * FROM subscription ORDER BY id").map { row in
                try JSONColumn.value(StoredSubscription.self, row["definition"]).subscription(
                    id: row["id"], createdAt: row["createdAt"], acceptedFixesBefore: row["acceptedFixesBefore"], deletedAt: row["deletedAt"])
            }
            let devices = try Row.fetchAll(db, sql: "SELECT * FROM device").map { row in
                DeviceState(id: row["id"], lastFix: try (row["lastFix"] as String?).map { try JSONColumn.value(StoredFix.self, $0).fix },
                            lastAcceptedOrdinal: row["lastAcceptedOrdinal"])
            }
            var progress: [ProgressKey: SubscriptionProgress] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM subscriptionProgress") {
                progress[ProgressKey(subscriptionId: row["subscriptionId"], deviceId: row["deviceId"])] =
                    try JSONColumn.value(StoredProgress.self, row["progress"]).progress
            }
            let lastSequence = try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM trackingEvent") ?? 0
            let acceptedFixes = devices.map(\.lastAcceptedOrdinal).max() ?? 0
            return TrackingState(subscriptions: subscriptions, devices: devices, progress: progress, lastSequence: lastSequence, acceptedFixes: acceptedFixes)
        }
    }

    public func commit(_ plans: [IngestPlan]) throws -> [Set<Int>] {
        try database.writer.write { db in try plans.map { try commit($0, in: db) } }
    }

    private func commit(_ plan: IngestPlan, in db: Database) throws -> Set<Int> {
        var duplicates: Set<Int> = []
        let insertFix = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO locationFix (deviceId, timestamp, latitude, longitude, horizontalAccuracy, speed, course,
              altitude, verticalAccuracy, receivedAt, late) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for stored in plan.stored {
            let fix = stored.fix
            try insertFix.execute(arguments: [
                plan.deviceId, fix.timestamp.microseconds, fix.coordinate.latitude, fix.coordinate.longitude, fix.horizontalAccuracy,
                fix.speed, fix.course, fix.altitude, fix.verticalAccuracy, plan.receivedAt.microseconds, stored.late,
            ])
            if db.changesCount == 0 {
                // Only a late fix can meet a stored instant; an accepted one is newer than all of them.
                guard stored.late else { throw TrackingStoreError.acceptedFixAlreadyStored(plan.deviceId, fix.timestamp) }
                duplicates.insert(stored.index)
            }
        }
        try insert(plan.events, in: db)
        let upsertProgress = try db.cachedStatement(sql: "INSERT OR REPLACE INTO subscriptionProgress (subscriptionId, deviceId, progress) VALUES (?, ?, ?)")
        for (key, progress) in plan.progress {
            try upsertProgress.execute(arguments: [key.subscriptionId, key.deviceId, StoredProgress(progress).text])
        }
        if plan.results.contains(where: { $0.status == .accepted }) {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO device (id, lastFix, lastAcceptedOrdinal) VALUES (?, ?, ?)")
                .execute(arguments: [plan.deviceId, plan.device.lastFix.map { StoredFix($0).text }, plan.device.lastAcceptedOrdinal])
        }
        return duplicates
    }

    public func insert(_ subscription: Subscription) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO subscription (id, definition, createdAt, acceptedFixesBefore, deletedAt) VALUES (?, ?, ?, ?, NULL)",
                arguments: [subscription.id, try JSONColumn.text(StoredSubscription(subscription)), subscription.createdAt.microseconds, subscription.acceptedFixesBefore]
            )
        }
    }

    public func commit(_ plan: DeletionPlan) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE subscription SET deletedAt = ? WHERE id = ?", arguments: [plan.subscription.deletedAt?.microseconds, plan.subscription.id])
            try db.execute(sql: "DELETE FROM subscriptionProgress WHERE subscriptionId = ?", arguments: [plan.subscription.id])
            try insert(plan.events, in: db)
        }
    }

    public func events(subscriptionId: String?, after sequence: Int64, limit: Int) async throws -> [TrackingEvent] {
        try await database.writer.read { db in
            let rows = if let subscriptionId {
                try Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM trackingEvent WHERE subscriptionId = ? AND sequence > ? ORDER BY sequence LIMIT ?"),
                                    arguments: [subscriptionId, sequence, limit])
            } else {
                try Row.fetchCursor(db.cachedStatement(sql: "SELECT * FROM trackingEvent WHERE sequence > ? ORDER BY sequence LIMIT ?"),
                                    arguments: [sequence, limit])
            }
            return try Array(rows.map { row in
                TrackingEvent(
                    id: row["id"], sequence: row["sequence"], subscriptionId: row["subscriptionId"], deviceId: row["deviceId"],
                    kind: TrackingEvent.Kind(rawValue: row["kind"]) ?? .significantChange, reason: row["reason"],
                    location: try JSONColumn.value(StoredFix.self, row["location"]).fix,
                    previousLocation: try (row["previousLocation"] as String?).map { try JSONColumn.value(StoredFix.self, $0).fix },
                    occurredAt: FixTime(microseconds: row["occurredAt"]), recordedAt: FixTime(microseconds: row["recordedAt"])
                )
            })
        }
    }

    public func fixes(deviceId: String, from: FixTime?, to: FixTime?, limit: Int) async throws -> [LocationFix] {
        try await database.writer.read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT * FROM locationFix WHERE deviceId = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp LIMIT ?"),
                arguments: [deviceId, from?.microseconds ?? Int64.min, to?.microseconds ?? Int64.max, limit]
            )
            return try Array(rows.map { row in
                LocationFix(
                    coordinate: .init(latitude: row["latitude"], longitude: row["longitude"]), timestamp: FixTime(microseconds: row["timestamp"]),
                    horizontalAccuracy: row["horizontalAccuracy"], speed: row["speed"], course: row["course"],
                    altitude: row["altitude"], verticalAccuracy: row["verticalAccuracy"]
                )
            })
        }
    }

    private func insert(_ events: [TrackingEvent], in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO trackingEvent (sequence, id, subscriptionId, deviceId, kind, reason, location, previousLocation, occurredAt, recordedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for event in events {
            try statement.execute(arguments: [
                event.sequence, event.id, event.subscriptionId, event.deviceId, event.kind.rawValue, event.reason,
                StoredFix(event.location).text, event.previousLocation.map { StoredFix($0).text },
                event.occurredAt.microseconds, event.recordedAt.microseconds,
            ])
        }
    }
}

/// What the tracking store found inconsistent (a bug, never the client's input).
public enum TrackingStoreError: Error, Hashable, Sendable {
    case acceptedFixAlreadyStored(String, FixTime)
}

extension SQLiteTrackingStore {
    /// The greatest subscription or event id stored, so a restart issues ids above it.
    public func lastIssuedID() async throws -> AnnotationID? {
        try await database.writer.read { db in
            let text = try String.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT max(id) AS id FROM subscription UNION ALL SELECT max(id) FROM trackingEvent)
                """)
            return text.flatMap(AnnotationID.init)
        }
    }
}
