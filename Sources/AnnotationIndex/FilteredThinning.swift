public import Annotations
import Synchronization
public import Timeline

/// Thinning of only the annotations a CQL2 filter matches: an ``IndexFollower`` per filter in
/// use (the ``maxFilters`` most recently used), over a ``ThinningSource`` that reads the store's
/// rows and keeps the matching ones. Built on a filter's first use, caught up with the change feed
/// on every later one, so a filtered answer includes every write that had returned before it was
/// asked, as an unfiltered one does. Clusters then count only what matches, and their ids name
/// the filter, so `GET /v1/clusters/{id}` finds the same index again.
public final class FilteredThinning: Sendable {
    /// Filters whose indexes are kept; the least recently used goes first.
    public static let maxFilters = 8

    private struct Entry {
        var follower: Task<IndexFollower, any Error>
        var used: UInt64
    }

    private let store: any AnnotationStore & ThinningSource
    private let points: IndexFollower
    private let entries = Mutex<(clock: UInt64, byFilter: [Filter: Entry])>((0, [:]))
    /// Where a build's read of the rows waits its turn among the expensive queries.
    private let admission: [AsyncGate]

    /// - Parameter points: the tenant's own follower, whose point index finds a spatial filter's rows.
    public init(store: any AnnotationStore & ThinningSource, points: IndexFollower, admission: [AsyncGate] = []) {
        self.store = store
        self.points = points
        self.admission = admission
    }

    /// The follower of `filter`'s matches, current with every write acknowledged before the call.
    public func follower(for filter: Filter) async throws -> IndexFollower {
        let task = entries.withLock { state in
            state.clock += 1
            if let entry = state.byFilter[filter] {
                state.byFilter[filter]?.used = state.clock
                return entry.follower
            }
            if state.byFilter.count >= Self.maxFilters, let oldest = state.byFilter.min(by: { $0.value.used < $1.value.used }) {
                // Dropped, and its build (if still running) stopped: at most maxFilters builds run.
                oldest.value.follower.cancel()
                state.byFilter[oldest.key] = nil
            }
            let source = MatchingSource(store: store, filter: filter, queries: AnnotationQueries(follower: points, store: store, admission: admission))
            let task = Task { try await IndexFollower(store: source) }
            state.byFilter[filter] = Entry(follower: task, used: state.clock)
            return task
        }
        do {
            // A request that times out or whose client left stops waiting; the build goes on for the next.
            let follower = try await task.valueUnlessCancelled()
            _ = try await follower.current()
            return follower
        } catch {
            // A failed or stopped build is not kept: the next request tries again. A waiter that gave
            // up (its request timed out, its client left) leaves a running build in place.
            if !(error is CancellationError) || task.isCancelled {
                entries.withLock { state in if state.byFilter[filter]?.follower == task { state.byFilter[filter] = nil } }
            }
            throw error
        }
    }
}

/// The store's annotations that `filter` matches, as the thinning index reads them.
private struct MatchingSource: ThinningSource {
    let store: any AnnotationStore & ThinningSource
    let filter: Filter
    let queries: AnnotationQueries

    var latestSequence: Int64 { store.latestSequence }

    func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64) {
        // The position first: rows read after it may be newer, and re-applying a change is harmless.
        let sequence = store.latestSequence
        let page = try await queries.page(matching: AnnotationQuery(filter: filter))
        return (page.annotations.map(ThinningEntry.init), sequence)
    }

    func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64) {
        let changes = try await store.changes(after: sequence, limit: limit)
        guard let through = changes.last?.sequence else { return ([], [], sequence) }
        let ids = Array(Set(changes.map(\.id)))
        let rows = try await store.annotations(ids: ids)
        let upserts = rows.values.filter(filter.matches).map(ThinningEntry.init)
        let kept = Set(upserts.map(\.id))
        return (upserts, ids.filter { !kept.contains($0) }.sorted(), through)
    }

    func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)] {
        // The store's values; the index keeps those of the annotations it holds.
        try await store.numericValues(of: property)
    }

    func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await store.waitForChanges(after: sequence, timeout: timeout)
    }
}
