import GRDB

/// Migration v4: a `tenant` column on every row a key can reach, per-tenant feed numbering, and
/// API keys. What was stored before belongs to the `default` tenant, numbered as it was.
///
/// SQLite cannot change a primary key or drop a UNIQUE constraint in place, so the tables whose
/// keys gain the tenant are rebuilt (create, copy, drop, rename), inside the migration's transaction.
enum TenantMigration {
    static func migrate(_ db: Database) throws {
        try rebuild(db, "annotation", """
            CREATE TABLE annotation (
              tenant TEXT NOT NULL, id TEXT PRIMARY KEY NOT NULL, externalId TEXT,
              latitude DOUBLE NOT NULL, longitude DOUBLE NOT NULL, title TEXT, subtitle TEXT, kind TEXT,
              clusteringIdentifier TEXT, displayPriority INTEGER NOT NULL, properties TEXT NOT NULL,
              version INTEGER NOT NULL, createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL)
            """, columns: "id, externalId, latitude, longitude, title, subtitle, kind, clusteringIdentifier, displayPriority, properties, version, createdAt, updatedAt")
        try db.execute(sql: """
            CREATE UNIQUE INDEX annotation_on_tenant_externalId ON annotation(tenant, externalId);
            CREATE INDEX annotation_on_tenant_id ON annotation(tenant, id);
            CREATE INDEX annotation_on_tenant_longitude_latitude ON annotation(tenant, longitude, latitude);
            ALTER TABLE annotationTombstone ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
            """)
        try rebuild(db, "annotationChange", """
            CREATE TABLE annotationChange (
              tenant TEXT NOT NULL, sequence INTEGER NOT NULL, kind TEXT NOT NULL, annotationId TEXT NOT NULL,
              version INTEGER NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (tenant, sequence)) WITHOUT ROWID
            """, columns: "sequence, kind, annotationId, version, at")
        try rebuild(db, "idempotencyKey", """
            CREATE TABLE idempotencyKey (
              tenant TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, annotationId TEXT NOT NULL,
              createdAt INTEGER NOT NULL, PRIMARY KEY (tenant, key)) WITHOUT ROWID
            """, columns: "key, fingerprint, annotationId, createdAt")
        try db.execute(sql: "CREATE INDEX idempotencyKey_on_createdAt ON idempotencyKey(createdAt)")
        try rebuild(db, "locationFix", """
            CREATE TABLE locationFix (
              tenant TEXT NOT NULL, deviceId TEXT NOT NULL, timestamp INTEGER NOT NULL,
              latitude DOUBLE NOT NULL, longitude DOUBLE NOT NULL, horizontalAccuracy DOUBLE NOT NULL,
              speed DOUBLE, course DOUBLE, altitude DOUBLE, verticalAccuracy DOUBLE,
              receivedAt INTEGER NOT NULL, late BOOLEAN NOT NULL, PRIMARY KEY (tenant, deviceId, timestamp)) WITHOUT ROWID
            """, columns: "deviceId, timestamp, latitude, longitude, horizontalAccuracy, speed, course, altitude, verticalAccuracy, receivedAt, late")
        try rebuild(db, "device", """
            CREATE TABLE device (
              tenant TEXT NOT NULL, id TEXT NOT NULL, lastFix TEXT, lastAcceptedOrdinal INTEGER NOT NULL,
              PRIMARY KEY (tenant, id)) WITHOUT ROWID
            """, columns: "id, lastFix, lastAcceptedOrdinal")
        try db.execute(sql: "ALTER TABLE subscription ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default'")
        try rebuild(db, "trackingEvent", """
            CREATE TABLE trackingEvent (
              tenant TEXT NOT NULL, sequence INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, subscriptionId TEXT NOT NULL,
              deviceId TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT, location TEXT NOT NULL, previousLocation TEXT,
              occurredAt INTEGER NOT NULL, recordedAt INTEGER NOT NULL, PRIMARY KEY (tenant, sequence)) WITHOUT ROWID
            """, columns: "sequence, id, subscriptionId, deviceId, kind, reason, location, previousLocation, occurredAt, recordedAt")
        try db.execute(sql: "CREATE INDEX trackingEvent_on_tenant_subscription ON trackingEvent(tenant, subscriptionId, sequence)")
        // The last number each tenant's feeds issued, advanced in the transaction that writes the entry.
        try db.execute(sql: """
            CREATE TABLE feedCounter (tenant TEXT NOT NULL, feed TEXT NOT NULL, last INTEGER NOT NULL, PRIMARY KEY (tenant, feed)) WITHOUT ROWID;
            INSERT INTO feedCounter SELECT 'default', 'annotations', max(sequence) FROM annotationChange HAVING count(*) > 0;
            CREATE TABLE apiKey (
              id TEXT PRIMARY KEY NOT NULL, tenant TEXT NOT NULL, role TEXT NOT NULL, name TEXT,
              salt BLOB NOT NULL, hash BLOB NOT NULL, createdAt INTEGER NOT NULL, revokedAt INTEGER);
            """)
    }

    /// Replaces `table` by the one `create` makes, copying `columns` and setting `tenant` to `default`.
    private static func rebuild(_ db: Database, _ table: String, _ create: String, columns: String) throws {
        try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(table)_v3")
        // Indexes move with a renamed table and keep their names: drop them before recreating.
        for index in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: ["\(table)_v3"]) {
            try db.execute(sql: "DROP INDEX \(index)")
        }
        try db.execute(sql: create)
        try db.execute(sql: "INSERT INTO \(table) (tenant, \(columns)) SELECT 'default', \(columns) FROM \(table)_v3")
        try db.execute(sql: "DROP TABLE \(table)_v3")
    }
}
