import Foundation
import Logging
import PostgresNIO
public import Timeline

/// Fixes and events on PostgreSQL live in month partitions (`location_fix` by `timestamp`,
/// `tracking_event` by `recorded_at`, UTC months of Unix microseconds), so retention drops a month
/// of rows at once instead of deleting them one by one, and the indexes a query needs stay a
/// month's size. Each table also has a default partition for rows older than its oldest month
/// (a late fix with an old timestamp); fixes more than 5 s ahead are refused and events are
/// recorded now, so with months made ahead nothing lands in the default partition's future.
///
/// Retention hides rows first (the tenant's marks: readers never read behind them), then a month
/// goes when every tenant in it has hidden all of its rows. Retention's own deletes stop at the
/// start of the month the horizon falls in; a month some tenant still keeps is emptied of the
/// others' hidden rows row by row once they have hidden all of it.
///
/// pg_partman (Debian's `postgresql-15-partman`) makes and drops partitions by one table-wide age;
/// retention here is per tenant and reads the marks, and a server without the extension (a managed
/// database) works the same, so the few statements are Meridian's own.
enum PostgresHistory {
    /// A partitioned table and its key, a `bigint` of Unix microseconds.
    struct Table: Sendable {
        let parent: String
        let column: String

        /// The partition holding `month`'s rows.
        func partition(_ month: Month) -> String { "\(parent)_p\(month.suffix)" }
        var defaultPartition: String { "\(parent)_default" }
    }

    static let fixes = Table(parent: "location_fix", column: "timestamp")
    static let events = Table(parent: "tracking_event", column: "recorded_at")
    static let tables = [fixes, events]
    /// Months made ahead of the current one: a month's partition exists long before its first row.
    static let monthsAhead = 2
    /// How far back the migration makes months for rows already stored (older ones go to the default partition).
    static let monthsBack = 36
    /// The advisory lock every instance takes to make or drop partitions (ASCII "history").
    static let lockKey: Int64 = 0x68_6973_746F_7279
    /// Longest the drop waits for the table's exclusive lock (readers and writers queue behind it meanwhile).
    static let dropLockTimeout = "1s"

    /// A UTC calendar month.
    struct Month: Comparable, Sendable {
        var year: Int
        var month: Int

        private static let calendar: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        init(year: Int, month: Int) { (self.year, self.month) = (year, month) }

        init(containing instant: Instant) {
            let date = Date(timeIntervalSince1970: Double(instant.microseconds.dividedRoundingDown(by: 1_000_000)))
            let parts = Self.calendar.dateComponents([.year, .month], from: date)
            self.init(year: parts.year!, month: parts.month!)
        }

        /// Parses a partition's suffix (`2026_11`).
        init?(suffix: Substring) {
            let parts = suffix.split(separator: "_")
            guard parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month) else { return nil }
            self.init(year: year, month: month)
        }

        var suffix: String { String(format: "%04d_%02d", year, month) }
        var next: Month { advanced(by: 1) }
        func advanced(by months: Int) -> Month {
            let index = year * 12 + (month - 1) + months
            let year = index.dividedRoundingDown(by: 12)
            return Month(year: year, month: index - year * 12 + 1)
        }
        /// The month's first microsecond.
        var start: Instant {
            let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: 1))!
            return Instant(microseconds: Int64(date.timeIntervalSince1970) * 1_000_000)
        }
        /// The first microsecond after it.
        var end: Instant { next.start }

        static func < (a: Month, b: Month) -> Bool { (a.year, a.month) < (b.year, b.month) }
    }

    /// The start of the month `horizon` falls in: how far retention deletes rows one by one (the
    /// rest of that month goes with its partition).
    static func rowDeletionBound(_ horizon: Instant) -> Instant { min(horizon, Month(containing: horizon).start) }

    /// Makes the partitions from `first` (default: `now`'s month) to `monthsAhead` after `now`'s
    /// month that do not exist yet, under the lock every instance takes for this. A month's rows
    /// already in the default partition (written while its partition was missing: a server
    /// stopped for months) move into it, so making a month never fails on them.
    static func prepare(_ connection: PostgresConnection, now: Instant, from first: Month? = nil, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
        var month = first ?? Month(containing: now)
        let last = Month(containing: now).advanced(by: monthsAhead)
        while month <= last {
            for table in tables {
                let name = table.partition(month)
                var exists = false
                for try await found in try await connection.query("SELECT to_regclass(\(name)) IS NOT NULL", logger: logger).decode(Bool.self) { exists = found }
                guard !exists else { continue }
                let (from, to) = (month.start.microseconds, month.end.microseconds)
                for statement in [
                    "CREATE TABLE \(name) (LIKE \(table.parent) INCLUDING DEFAULTS)",
                    // Before the move: a row written to the default partition after it would fail the attach.
                    "LOCK TABLE \(table.defaultPartition) IN ACCESS EXCLUSIVE MODE",
                    """
                    WITH moved AS (DELETE FROM \(table.defaultPartition) WHERE \(table.column) >= \(from) AND \(table.column) < \(to) RETURNING *)
                    INSERT INTO \(name) SELECT * FROM moved
                    """,
                    // Attaching makes the parent's key and indexes on it.
                    "ALTER TABLE \(table.parent) ATTACH PARTITION \(name) FOR VALUES FROM (\(from)) TO (\(to))",
                ] { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            }
            month = month.next
        }
    }

    /// Makes the coming months' partitions (``prepare(_:now:from:logger:)``) in a transaction of their own.
    static func prepare(_ database: PostgresDatabase, now: Instant) async throws {
        try await database.transaction { connection in
            // Readers and writers of the default partition wait behind it: briefly, or not this time.
            try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(dropLockTimeout)'"), logger: database.logger)
            try await prepare(connection, now: now, logger: database.logger)
        }
    }

    /// `table`'s month partitions, oldest first.
    static func months(of table: Table, _ connection: PostgresConnection, logger: Logger) async throws -> [Month] {
        var months: [Month] = []
        for try await name in try await connection.query("""
            SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = \(table.parent)::regclass
            """, logger: logger).decode(String.self) {
            let prefix = "\(table.parent)_p"
            if name.hasPrefix(prefix), let month = Month(suffix: name.dropFirst(prefix.count)) { months.append(month) }
        }
        return months.sorted()
    }

    /// Whether every tenant with rows in `table`'s partition of `month` has hidden them all
    /// (fixes: the tenant's `fixes_before` is at or past the month's end; events: its last event
    /// there is at or before its `events_through`). The tenants are found by a loose index scan.
    static func hidden(_ table: Table, _ month: Month, _ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let partition = table.partition(month)
        let kept = table.parent == fixes.parent
            ? "coalesce(r.fixes_before, \(Int64.min)) < \(month.end.microseconds)"
            : "(SELECT max(sequence) FROM \(partition) e WHERE e.tenant = t.tenant) > coalesce(r.events_through, 0)"
        for try await count in try await connection.query(PostgresQuery(unsafeSQL: """
            WITH RECURSIVE t AS (
                SELECT min(tenant) AS tenant FROM \(partition)
                UNION ALL SELECT (SELECT min(tenant) FROM \(partition) WHERE tenant > t.tenant) FROM t WHERE t.tenant IS NOT NULL)
            SELECT count(*) FROM t LEFT JOIN retention r ON r.tenant = t.tenant WHERE t.tenant IS NOT NULL AND \(kept)
            """), logger: logger).decode(Int64.self) { return count == 0 }
        return false
    }

    static func isEmpty(_ table: Table, _ month: Month, _ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await empty in try await connection.query(PostgresQuery(unsafeSQL: "SELECT NOT EXISTS (SELECT 1 FROM \(table.partition(month)))"), logger: logger).decode(Bool.self) {
            return empty
        }
        return true
    }

    /// Drops every past month partition whose rows all tenants have hidden, one transaction per
    /// partition (last month only when it has rows: an empty one is kept for late fixes). A month
    /// another instance is dropping, or whose table stays busy past the lock timeout, is left to
    /// the next sweep; the other months and tables go on.
    /// - Returns: the partitions dropped.
    static func dropHidden(_ database: PostgresDatabase, now: Instant) async throws -> [String] {
        let logger = database.logger
        let current = Month(containing: now)
        var dropped: [String] = []
        for table in tables {
            // Past months; last month only with rows (an empty one waits for a device's late upload).
            let candidates = try await database.withConnection { connection in
                var past: [Month] = []
                for month in try await months(of: table, connection, logger: logger) where month < current {
                    if month == current.advanced(by: -1), try await isEmpty(table, month, connection, logger: logger) { continue }
                    past.append(month)
                }
                return past
            }
            // Checked first without the lock; a month that looks hidden is checked again under it.
            for month in candidates where try await database.withConnection({ try await hidden(table, month, $0, logger: logger) }) {
                // Not dropped: another instance is at it, another tenant wrote there meanwhile, or
                // the table stayed busy past the lock timeout; the next sweep tries again.
                do {
                    if try await drop(table, month, database) { dropped.append(table.partition(month)) }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    logger.warning("could not drop a month of history now; retrying at the next sweep",
                                   metadata: ["partition": "\(table.partition(month))", "error": "\(String(reflecting: error))"])
                }
            }
        }
        return dropped
    }

    /// Drops `table`'s partition of `month` if every tenant in it has hidden it, checked again
    /// under the parent's exclusive lock (taken first, as every insert and read takes the parent
    /// first), so no row reaches the month between the check and the drop. False when another
    /// instance is dropping or the month is not hidden after all.
    static func drop(_ table: Table, _ month: Month, _ database: PostgresDatabase) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection -> Bool in
            for try await taken in try await connection.query("SELECT pg_try_advisory_xact_lock(\(lockKey))", logger: logger).decode(Bool.self) where !taken {
                return false
            }
            try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(dropLockTimeout)'"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE ONLY \(table.parent) IN ACCESS EXCLUSIVE MODE"), logger: logger)
            guard try await hidden(table, month, connection, logger: logger) else { return false }
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table.partition(month))"), logger: logger)
            return true
        }
    }
}

extension BinaryInteger {
    /// The quotient rounded toward negative infinity.
    fileprivate func dividedRoundingDown(by divisor: Self) -> Self {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
