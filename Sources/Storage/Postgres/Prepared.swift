import Logging
import PostgresNIO
import Synchronization

/// A statement run as a prepared statement: PostgreSQL parses it once per connection and may keep
/// its plan, where a statement sent on its own is parsed and planned at every call. For the few
/// that run once per write and whose plan does not depend on their values (arrays unnested into
/// inserts), planning was a third of their cost. `Text` names one statement; its text is the
/// interpolated query's, the same at every call (every value a binding), taken from the first.
struct Prepared<Text: PreparedText>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var sql: String { Text.text.withLock { $0 ?? "" } }
    let bindings: PostgresBindings

    init(_ query: PostgresQuery) {
        Text.text.withLock { text in
            if text == nil { text = query.sql }
            precondition(text == query.sql, "a prepared statement's text varies between calls")
        }
        bindings = query.binds
    }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// One prepared statement's text, once known.
protocol PreparedText: Sendable {
    static var text: Mutex<String?> { get }
}

/// The tracking rows statement (``PostgresTrackingTransaction/write(_:)``): in an ingest's
/// transaction planned once per connection (``PostgresTrackingTransaction/changesFunction`` sets
/// `plan_cache_mode` there); planning it (ten tables, month partitions) took 0.3 ms of its 1.1.
enum TrackingRowsText: PreparedText {
    static let text = Mutex<String?>(nil)
}

/// The grouped insert of new annotations (``PostgresAnnotationRow/insert(_:numbering:tenant:at:on:logger:)``).
enum AnnotationInsertText: PreparedText {
    static let text = Mutex<String?>(nil)
}

extension PostgresConnection {
    /// `query`'s rows, run as the prepared statement `Text`. After an error the connection is
    /// closed (the pool opens another): postgres-nio keeps a failed prepare for the connection's
    /// life, so every later call of the statement on it would fail the same way.
    func rows<Text: PreparedText>(of query: PostgresQuery, preparedAs _: Text.Type, logger: Logger) async throws -> [PostgresRow] {
        do {
            var rows: [PostgresRow] = []
            for try await row in try await execute(Prepared<Text>(query), logger: logger) { rows.append(row) }
            return rows
        } catch {
            try? await close()
            throw error
        }
    }
}
