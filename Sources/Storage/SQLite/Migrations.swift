import GRDB
import Timeline

/// The schema. A migration that has shipped is never edited; changes come as new migrations.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: annotations") { db in
            try db.create(table: "annotation") { t in
                t.primaryKey("id", .text)  // UUIDv7 text: lexical order is issue order
                t.column("externalId", .text).unique()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("title", .text)
                t.column("subtitle", .text)
                t.column("kind", .text)
                t.column("clusteringIdentifier", .text)
                t.column("displayPriority", .integer).notNull()
                t.column("properties", .text).notNull()  // JSON object
                t.column("version", .integer).notNull()
                t.column("createdAt", .integer).notNull()  // Unix milliseconds
                t.column("updatedAt", .integer).notNull()
            }
            try db.create(index: "annotation_on_longitude_latitude", on: "annotation", columns: ["longitude", "latitude"])
            try db.create(table: "annotationTombstone") { t in
                t.primaryKey("id", .text)
                t.column("version", .integer).notNull()
                t.column("deletedAt", .integer).notNull()
            }
            try db.create(table: "annotationChange") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("kind", .text).notNull()
                t.column("annotationId", .text).notNull().indexed()
                t.column("version", .integer).notNull()
                t.column("at", .integer).notNull()
            }
        }
        migrator.registerMigration("v2: idempotency keys") { db in
            // A POST's Idempotency-Key, written in the transaction of the create it names, so a
            // replay works after a crash. The first answer is rebuilt from the annotation id, the
            // creation time and the request content (which the fingerprint pins down).
            try db.create(table: "idempotencyKey") { t in
                t.primaryKey("key", .text)
                t.column("fingerprint", .text).notNull()  // canonical JSON of the request content
                t.column("annotationId", .text).notNull()
                t.column("createdAt", .integer).notNull().indexed()  // Unix milliseconds
            }
        }
        migrator.registerMigration("v3: tracking") { db in
            // Fixes keyed by device and instant (microseconds): a duplicate is a key collision,
            // and history reads are one range of the key.
            try db.create(table: "locationFix", options: .withoutRowID) { t in
                t.column("deviceId", .text).notNull()
                t.column("timestamp", .integer).notNull()  // Unix microseconds
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("horizontalAccuracy", .double).notNull()
                t.column("speed", .double)
                t.column("course", .double)
                t.column("altitude", .double)
                t.column("verticalAccuracy", .double)
                t.column("receivedAt", .integer).notNull()
                t.column("late", .boolean).notNull()
                t.primaryKey(["deviceId", "timestamp"])
            }
            try db.create(table: "device") { t in
                t.primaryKey("id", .text)
                t.column("lastFix", .text)  // JSON, the newest accepted fix
                t.column("lastAcceptedOrdinal", .integer).notNull()
            }
            try db.create(table: "subscription") { t in
                t.primaryKey("id", .text)  // UUIDv7: creation order
                t.column("definition", .text).notNull()  // JSON
                t.column("createdAt", .integer).notNull()
                t.column("acceptedFixesBefore", .integer).notNull()
                t.column("deletedAt", .integer)
            }
            try db.create(table: "subscriptionProgress", options: .withoutRowID) { t in
                t.column("subscriptionId", .text).notNull()
                t.column("deviceId", .text).notNull()
                t.column("progress", .text).notNull()  // JSON
                t.primaryKey(["subscriptionId", "deviceId"])
            }
            // The event log: sequence is issued by the tracker, gap-free, in commit order.
            try db.create(table: "trackingEvent") { t in
                t.primaryKey("sequence", .integer)
                t.column("id", .text).notNull().unique()
                t.column("subscriptionId", .text).notNull()
                t.column("deviceId", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("reason", .text)
                t.column("location", .text).notNull()  // JSON fix
                t.column("previousLocation", .text)
                t.column("occurredAt", .integer).notNull()
                t.column("recordedAt", .integer).notNull()
            }
            try db.create(index: "trackingEvent_on_subscription", on: "trackingEvent", columns: ["subscriptionId", "sequence"])
        }
        migrator.registerMigration("v4: tenants and keys") { db in
            try TenantMigration.migrate(db)
        }
        migrator.registerMigration("v5: webhooks") { db in
            // A webhook's progress is its committed cursor (the last acknowledged sequence of the
            // tenant's event log); `epoch` is bumped by a replay so an older send cannot move it on.
            try db.create(table: "webhook") { t in
                t.primaryKey("id", .text)  // UUIDv7
                t.column("tenant", .text).notNull()
                t.column("url", .text).notNull()
                t.column("subscriptionIds", .text)  // JSON array; NULL: every subscription
                t.column("secret", .text).notNull()  // whsec_…, needed in clear to sign
                t.column("retiredSecrets", .text).notNull()  // JSON [{secret, expiresAt (Unix µs)}], newest first
                t.column("state", .text).notNull()
                t.column("disabledReason", .text)
                t.column("cursor", .integer).notNull()
                t.column("epoch", .integer).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
            }
            try db.create(index: "webhook_on_tenant", on: "webhook", columns: ["tenant", "id"])
            try db.create(table: "webhookDelivery") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("webhookId", .text).notNull()
                t.column("sequence", .integer).notNull()
                t.column("eventId", .text).notNull()
                t.column("attempt", .integer).notNull()
                t.column("at", .integer).notNull()  // Unix microseconds
                t.column("statusCode", .integer)
                t.column("error", .text)
                t.column("latencyMilliseconds", .double).notNull()
                t.column("outcome", .text).notNull()
            }
            try db.create(index: "webhookDelivery_on_webhook", on: "webhookDelivery", columns: ["webhookId", "id"])
            try db.create(index: "webhookDelivery_on_outcome", on: "webhookDelivery", columns: ["webhookId", "outcome", "id"])
        }
        migrator.registerMigration("v6: interpolated events") { db in
            // An enter or exit placed between two fixes (a region's `detect: ["cross"]`).
            try db.alter(table: "trackingEvent") { t in t.add(column: "interpolated", .boolean).notNull().defaults(to: false) }
        }
        migrator.registerMigration("v7: subscription names in events") { db in
            // The subscription's name and properties (JSON object) when it emitted the event.
            try db.alter(table: "trackingEvent") { t in
                t.add(column: "subscriptionName", .text)
                t.add(column: "subscriptionProperties", .text)
            }
        }
        migrator.registerMigration("v8: ingest filters") { db in
            // A tenant's ingest filters, JSON (no row: every rule off).
            try db.create(table: "ingestFilters") { t in
                t.primaryKey("tenant", .text)
                t.column("settings", .text).notNull()
            }
        }
        migrator.registerMigration("v9: fix attributes") { db in
            // A fix's free attributes, canonical JSON (exact numbers); NULL when it has none.
            try db.alter(table: "locationFix") { t in t.add(column: "attributes", .text) }
        }
        migrator.registerMigration("v10: device registry: profiles, groups, erased events") { db in
            // A profile's and a group's content is one JSON definition ({name, properties, groups, ingestFilters}).
            try db.execute(sql: """
                CREATE TABLE deviceProfile (
                  tenant TEXT NOT NULL, id TEXT NOT NULL, definition TEXT NOT NULL, version INTEGER NOT NULL, updatedAt INTEGER NOT NULL,
                  PRIMARY KEY (tenant, id)) WITHOUT ROWID;
                CREATE TABLE deviceGroup (
                  tenant TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL, version INTEGER NOT NULL, updatedAt INTEGER NOT NULL,
                  PRIMARY KEY (tenant, name)) WITHOUT ROWID;
                """)
            // An erased event keeps its sequence, id and subscription; the rest is blanked.
            try db.alter(table: "trackingEvent") { t in t.add(column: "erased", .boolean).notNull().defaults(to: false) }
            try db.create(index: "trackingEvent_on_tenant_device", on: "trackingEvent", columns: ["tenant", "deviceId"])
        }
        migrator.registerMigration("v11: status timers: device status and its deadlines") { db in
            // Where a status subscription stands with a device; offlineAt and stoppedAt are its
            // pending deadlines (Unix microseconds, NULL: none), committed with the state that set them.
            try db.execute(sql: """
                CREATE TABLE deviceStatus (
                  tenant TEXT NOT NULL, subscriptionId TEXT NOT NULL, deviceId TEXT NOT NULL,
                  offline BOOLEAN NOT NULL, stopped BOOLEAN NOT NULL, offlineAt INTEGER, stoppedAt INTEGER,
                  PRIMARY KEY (tenant, subscriptionId, deviceId)) WITHOUT ROWID;
                CREATE INDEX deviceStatus_on_device ON deviceStatus (tenant, deviceId);
                """)
        }
        migrator.registerMigration("v12: visit events") { db in
            // A visitArrival's or visitDeparture's stay, JSON {c: {la, lo}, h, a, d}; NULL for other events.
            try db.alter(table: "trackingEvent") { t in t.add(column: "visit", .text) }
        }
        migrator.registerMigration("v13: retention: per-tenant settings and marks") { db in
            // A tenant's own retention (seconds; NULL: the server's default) and what was deleted:
            // the last event sequence (the log starts after it) and the horizon fixes were swept to (Unix µs).
            try db.execute(sql: """
                CREATE TABLE retention (
                  tenant TEXT PRIMARY KEY NOT NULL, keepFixes INTEGER, keepEvents INTEGER,
                  eventsThrough INTEGER NOT NULL DEFAULT 0, fixesBefore INTEGER) WITHOUT ROWID
                """)
        }
        migrator.registerMigration("v14: status: offline deadlines that follow the last fix") { db in
            // True: offlineAt is the device's last fix + offlineAfter, derived when loading (ingest
            // does not rewrite the row when only that deadline moves); false: offlineAt as stored.
            try db.alter(table: "deviceStatus") { t in t.add(column: "followsLastFix", .boolean).notNull().defaults(to: false) }
        }
        return migrator
    }
}
