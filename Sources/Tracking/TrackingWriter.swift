/// How the ``Tracker``'s planned work reaches storage, and how the in-memory ``TrackingState`` is
/// kept current with it. The tracker only plans (on the state a writer hands it, without changing
/// it); the writer applies each plan to the state, commits it, answers only after the commit, and
/// after a failure puts the state back to the store's (the store is the truth). Plans are made one
/// at a time on the state every earlier one left, so event sequences are issued gap-free in
/// commit order.
///
/// - ``GroupCommitWriter``: one process over SQLite, a pipeline that commits together the batches
///   that wait.
/// - ``ExclusiveWriter``: several processes over PostgreSQL, each change in an exclusive
///   transaction on a state caught up to the store's revision.
public protocol TrackingWriter: Sendable {
    /// The event log and fixes, read back.
    var log: any TrackingLog { get }
    /// The last event sequence the store held when the writer loaded the state.
    var loadedLastSequence: Int64 { get }
    /// Plans one ingest batch of `deviceId` with `plan`, in arrival order, applies it, commits it
    /// and returns it with its duplicates marked.
    func ingest(deviceId: String, _ plan: @escaping @Sendable (TrackingState) -> IngestPlan) async throws -> IngestPlan
    /// Plans a change with `plan` once every earlier change is committed, then applies and commits
    /// the write it returns (none: nothing changes) and returns its answer. When `plan` throws,
    /// nothing changes.
    func change<T: Sendable>(_ plan: @escaping @Sendable (TrackingState) throws -> (answer: T, write: TrackingWrite?)) async throws -> T
    /// Reads the committed state, between writes.
    func read<T: Sendable>(_ body: @escaping @Sendable (TrackingState) -> T) async throws -> T
}

/// Told the last event sequence and how many events a commit appended, after each commit that wrote events.
public typealias TrackingCommitted = @Sendable (_ last: Int64, _ appended: Int) -> Void


/// Tells `committed` about the events a commit appended, if any.
func announce(_ events: [TrackingEvent], to committed: TrackingCommitted) {
    if let last = events.last { committed(last.sequence, events.count) }
}
