import GRDB

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
        return migrator
    }
}
