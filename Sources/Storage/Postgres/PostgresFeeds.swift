import Logging
import PostgresNIO
import Synchronization
import Timeline

/// Per tenant and feed, the last sequence this process knows was committed: its own commits
/// announce theirs at once, other instances' arrive by `NOTIFY` (sent in the writing transaction,
/// so delivered at its commit). The feed tables stay the truth: a notification only wakes readers,
/// who then read the rows. After (re)connecting the listener re-reads every counter, so a
/// notification missed while disconnected costs latency, never an entry.
final class PostgresFeeds: Sendable {
    /// The channel every instance listens on; a payload is `feed tenant sequence`.
    static let channel = "meridian_feed"
    /// The pause before listening again after the listening connection failed.
    static let reconnectPause: Duration = .seconds(1)
    /// How often every counter is read besides: a notification lost on the way (it should not
    /// be) delays a reader by at most this.
    static let pollInterval: Duration = .seconds(1)

    private let signals = Mutex<[String: SequenceSignal]>([:])
    private let announced = Mutex<[TenantID: AnnouncedChanges]>([:])

    /// The annotation changes `tenant`'s commits announced (``AnnouncedChanges``), kept from now
    /// on (only the tenants this process opened a store of are kept).
    func announcedChanges(_ tenant: TenantID) -> AnnouncedChanges {
        announced.withLock { announced in
            if let changes = announced[tenant] { return changes }
            let changes = AnnouncedChanges()
            announced[tenant] = changes
            return changes
        }
    }

    /// The signal of `tenant`'s `feed` (a feed that never had an entry starts at 0).
    func signal(_ feed: String, _ tenant: TenantID) -> SequenceSignal {
        signals.withLock { signals in
            let key = "\(feed) \(tenant)"
            if let signal = signals[key] { return signal }
            let signal = SequenceSignal(latest: 0)
            signals[key] = signal
            return signal
        }
    }

    /// The payload announcing that `tenant`'s `feed` ends at `sequence`; after a line break, the
    /// `body` of the changes numbered up to it (the annotations feed's, ``AnnouncedChanges/payload(_:)``).
    static func payload(_ feed: String, _ tenant: TenantID, _ sequence: Int64, body: String? = nil) -> String {
        "\(feed) \(tenant) \(sequence)" + suffix(body)
    }

    /// What follows the counter's line: the body after a line break, or nothing.
    static func suffix(_ body: String?) -> String {
        body.map { "\n" + $0 } ?? ""
    }

    /// Keeps the changes a payload carries, then advances the signal it names (so a reader it
    /// wakes finds them); malformed payloads (not Meridian's) are ignored.
    func receive(_ payload: String) {
        let lines = payload.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, let tenant = TenantID(String(parts[1])), let sequence = Int64(parts[2]) else { return }
        if lines.count == 2, parts[0] == PostgresAnnotationStore.feedName, let kept = announced.withLock({ $0[tenant] }),
           let changes = AnnouncedChanges.changes(inPayload: lines[1]) {
            kept.append(changes, through: sequence)
        }
        signal(String(parts[0]), tenant).advance(to: sequence)
    }

    /// Advances every signal to its counter row.
    func refresh(from client: PostgresClient, logger: Logger) async throws {
        // Abandoned when its connection closes under it, so the poll goes on after a restart.
        try await client.withConnection { connection in
            try await connection.abandoningIfClosed { _ in
                for try await (tenant, feed, last) in try await connection.query("SELECT tenant, feed, last FROM feed_counter", logger: logger)
                    .decode((String, String, Int64).self) {
                    if let tenant = TenantID(tenant) { self.signal(feed, tenant).advance(to: last) }
                }
            }
        }
    }

    /// Listens until the task is cancelled, reconnecting after failures; reads every counter
    /// each ``pollInterval`` besides.
    func listen(on client: PostgresClient, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.notifications(on: client, logger: logger) }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.pollInterval)
                    try? await self.refresh(from: client, logger: logger)
                }
            }
        }
    }

    private func notifications(on client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // Listening now: whatever committed before is in the counters.
                        try await refresh(from: client, logger: logger)
                        for try await notification in notifications { receive(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for other instances' commits failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: Self.reconnectPause)
        }
    }
}

/// A tenant's feed counter inside a writing transaction: locked first (every write of a tenant
/// takes it before any row, so writers queue in one order and never deadlock, as SQLite's one
/// writer does), numbers handed out in memory, stored and announced once at the end.
struct FeedAppender {
    let feed: String
    let tenant: TenantID
    /// The counter as the transaction found it.
    let first: Int64
    /// The last number issued so far.
    private(set) var last: Int64
    /// The changes numbered so far, to announce with the counter (the annotations feed's); nil once
    /// one was not given (the payload then announces only the counter).
    private var changes: [AnnouncedChanges.Change]? = []

    /// Locks (`tenant`, `feed`)'s counter row, creating it at 0, for the rest of the transaction.
    static func lock(_ feed: String, _ tenant: TenantID, on connection: PostgresConnection, logger: Logger) async throws -> FeedAppender {
        let rows = try await connection.query("""
            INSERT INTO feed_counter (tenant, feed, last) VALUES (\(tenant.description), \(feed), 0)
            ON CONFLICT (tenant, feed) DO UPDATE SET last = feed_counter.last RETURNING last
            """, logger: logger)
        var last: Int64 = 0
        for try await value in rows.decode(Int64.self) { last = value }
        return FeedAppender(feed: feed, tenant: tenant, first: last, last: last)
    }

    /// The next number, for `change` when it is given (announced with the counter).
    mutating func next(announcing change: AnnouncedChanges.Change? = nil) -> Int64 {
        last += 1
        if let change { changes?.append(change) } else { changes = nil }
        return last
    }

    /// Stores the counter and notifies every listener, when numbers were issued; returns the last, or nil.
    func finish(on connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        guard last > first else { return nil }
        // The rows are read: an error in a statement that returns rows reaches only its reader.
        for try await _ in try await connection.query("""
            WITH stored AS (UPDATE feed_counter SET last = \(last) WHERE tenant = \(tenant.description) AND feed = \(feed))
            SELECT pg_notify(\(PostgresFeeds.channel), \(PostgresFeeds.payload(feed, tenant, last, body: changes.flatMap(AnnouncedChanges.payload))))
            """, logger: logger) {}
        return last
    }
}
