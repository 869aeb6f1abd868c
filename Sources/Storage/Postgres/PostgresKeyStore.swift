public import Access
public import Foundation
import Logging
import PostgresNIO
import Synchronization
public import Timeline

/// API keys on PostgreSQL. A request's check reads an in-memory copy of the `api_key` table (no
/// round trip per request); every key write bumps the `keys` feed counter and notifies, and every
/// instance reloads its copy when the notification arrives, so a revocation holds on every
/// instance milliseconds after `meridian keys revoke` commits.
public final class PostgresKeyStore: KeyDirectory {
    let database: PostgresDatabase
    private let copy = Mutex<[String: APIKey]>([:])
    private let following: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// The feed whose counter numbers key writes (in the `default` tenant's row: keys span tenants).
    static let feedName = "keys"

    /// The keys of `database`, loaded; follows other processes' key writes when `following`.
    public static func open(on database: PostgresDatabase, following: Bool = true) async throws -> PostgresKeyStore {
        let store = PostgresKeyStore(database: database)
        try await store.reload()
        if following {
            let task = Task { [weak store] in
                let signal = database.feeds.signal(Self.feedName, .default)
                var seen = signal.latest
                while !Task.isCancelled {
                    await signal.wait(after: seen, timeout: .seconds(60))
                    guard let store else { return }
                    let latest = signal.latest
                    guard latest > seen else { continue }
                    do {
                        try await store.reload()
                        seen = latest
                    } catch {
                        database.logger.error("reloading the API keys failed; retrying", metadata: ["error": "\(error)"])
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
            }
            store.following.withLock { $0 = task }
        }
        return store
    }

    private init(database: PostgresDatabase) {
        self.database = database
    }

    deinit {
        following.withLock { $0?.cancel() }
    }

    public func key(id: String) throws -> APIKey? {
        copy.withLock { $0[id] }
    }

    public func anyKeyExists() throws -> Bool {
        copy.withLock { !$0.isEmpty }
    }

    /// Stores a new key.
    public func insert(_ key: APIKey) async throws {
        try await write { connection in
            try await connection.query("""
                INSERT INTO api_key (tenant, id, role, name, salt, hash, created_at)
                VALUES (\(key.tenant.description), \(key.id), \(key.role.rawValue), \(key.name), \(Data(key.salt)), \(Data(key.hash)),
                        \(unescaped: PostgresAnnotationRow.instant(key.createdAt)))
                """, logger: self.database.logger)
            return true
        }
    }

    /// Marks the key revoked at `at`; false when no key has this id. Revoking twice keeps the first time.
    public func revoke(id: String, at: Date) async throws -> Bool {
        try await write { connection in
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM api_key WHERE id = \(id)", logger: self.database.logger) { found = true }
            guard found else { return false }
            try await connection.query("""
                UPDATE api_key SET revoked_at = \(unescaped: PostgresAnnotationRow.instant(at)) WHERE id = \(id) AND revoked_at IS NULL
                """, logger: self.database.logger)
            return true
        }
    }

    /// Every key (of one tenant, or of all), oldest first, as the database holds them now.
    public func keys(tenant: TenantID?) async throws -> [APIKey] {
        try await read().filter { tenant == nil || $0.tenant == tenant }
    }

    /// A key write in a transaction that bumps and announces the `keys` counter; reloads this copy.
    private func write(_ body: @escaping @Sendable (PostgresConnection) async throws -> Bool) async throws -> Bool {
        let logger = database.logger
        let changed = try await database.transaction { connection in
            var appender = try await FeedAppender.lock(Self.feedName, .default, on: connection, logger: logger)
            guard try await body(connection) else { return false }
            _ = appender.next()
            _ = try await appender.finish(on: connection, logger: logger)
            return true
        }
        if changed { try await reload() }
        return changed
    }

    private func reload() async throws {
        let keys = try await read()
        copy.withLock { copy in copy = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }) }
    }

    private func read() async throws -> [APIKey] {
        let rows = try await database.client.query("""
            SELECT id, tenant, role, name, salt, hash, \(unescaped: PostgresAnnotationRow.milliseconds("created_at")),
                   \(unescaped: PostgresAnnotationRow.milliseconds("revoked_at"))
            FROM api_key ORDER BY created_at, id
            """, logger: self.database.logger)
        var keys: [APIKey] = []
        for try await (id, tenant, role, name, salt, hash, created, revoked) in rows.decode((String, String, String, String?, Data, Data, Int64, Int64?).self) {
            guard let tenant = TenantID(tenant), let role = Role(rawValue: role) else { throw StorageError.corruptRow(table: "api_key", id: id) }
            keys.append(APIKey(id: id, tenant: tenant, role: role, name: name, salt: Array(salt), hash: Array(hash),
                               createdAt: UnixMilliseconds.date(created), revokedAt: revoked.map(UnixMilliseconds.date)))
        }
        return keys
    }
}
