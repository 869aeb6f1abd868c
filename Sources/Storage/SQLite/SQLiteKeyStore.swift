public import Access
public import Foundation
import GRDB
public import Timeline

/// ``KeyStore`` on SQLite (the `apiKey` table). Reads run on a reader connection outside any
/// longer transaction, so they see every commit, another process's `meridian keys revoke` included.
public struct SQLiteKeyStore: KeyStore {
    let database: MeridianDatabase

    public init(database: MeridianDatabase) {
        self.database = database
    }

    public func insert(_ key: APIKey) throws {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO apiKey (id, tenant, role, name, salt, hash, createdAt, revokedAt) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                arguments: [key.id, key.tenant.description, key.role.rawValue, key.name, Data(key.salt), Data(key.hash), UnixMilliseconds.from(key.createdAt)])
        }
    }

    public func key(id: String) throws -> APIKey? {
        guard let lookup = database.keyLookup else {
            return try database.writer.unsafeReentrantRead { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apiKey WHERE id = ?"), arguments: [id]).map(Self.key)
            }
        }
        return try lookup.key(id: id).map { try Self.key(id: id, $0) }
    }

    public func keys(tenant: TenantID?) throws -> [APIKey] {
        try database.writer.read { db in
            let rows = if let tenant {
                try Row.fetchAll(db, sql: "SELECT * FROM apiKey WHERE tenant = ? ORDER BY createdAt, id", arguments: [tenant.description])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM apiKey ORDER BY createdAt, id")
            }
            return try rows.map(Self.key)
        }
    }

    public func revoke(id: String, at: Date) throws -> Bool {
        try database.writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM apiKey WHERE id = ?)", arguments: [id]) == true else { return false }
            try db.execute(sql: "UPDATE apiKey SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [UnixMilliseconds.from(at), id])
            return true
        }
    }

    public func anyKeyExists() throws -> Bool {
        if let lookup = database.keyLookup { return try lookup.anyKey() }
        return try database.writer.unsafeReentrantRead { db in try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM apiKey)")) ?? false }
    }

    private static func key(_ row: Row) throws -> APIKey {
        let id: String = row["id"]
        guard let salt = row["salt"] as Data?, let hash = row["hash"] as Data? else { throw StorageError.corruptRow(table: "apiKey", id: id) }
        return try key(id: id, KeyLookup.Row(
            tenant: row["tenant"], role: row["role"], name: row["name"], salt: Array(salt), hash: Array(hash),
            createdAt: row["createdAt"], revokedAt: row["revokedAt"]))
    }

    /// The one mapping from a stored key's columns to the domain value; an unknown tenant or role is a corrupt row.
    private static func key(id: String, _ row: KeyLookup.Row) throws -> APIKey {
        guard let tenant = TenantID(row.tenant), let role = Role(rawValue: row.role) else { throw StorageError.corruptRow(table: "apiKey", id: id) }
        return APIKey(id: id, tenant: tenant, role: role, name: row.name, salt: row.salt, hash: row.hash,
                      createdAt: UnixMilliseconds.date(row.createdAt), revokedAt: row.revokedAt.map(UnixMilliseconds.date))
    }
}
