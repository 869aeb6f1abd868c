import Synchronization
public import Timeline

/// Keeps a ``ThinningIndex`` and a ``PointIndex`` current with a ``ThinningSource``'s change feed: loaded once from
/// the store, then caught up with every write. ``current()`` catches up first, so a thinning
/// answer always includes every write that had returned before it was asked (no rebuild step,
/// no eventual window); ``follow()`` catches up in the background so that is rarely needed.
public final class IndexFollower: Sendable {
    /// Feed entries read per catch-up transaction.
    public static let pageSize = 10_000
    /// The longest a background catch-up waits for the feed before it looks again.
    static let followTimeout: Duration = .seconds(30)
    /// The pause after a failed catch-up, so a failing database is not polled in a loop.
    static let retryPause: Duration = .seconds(1)

    public let index: ThinningIndex
    /// The same annotations by coordinate, for the query verbs; applied before `index`, so it is
    /// at least as current as `index.sequence` says.
    public let points: PointIndex
    private let store: any ThinningSource
    /// The catch-up running now; one at a time, so older reads never overwrite newer ones.
    private let running = Mutex<Task<Void, any Error>?>(nil)
    /// Column builds under way, by property: concurrent requests for one wait for the same build.
    private let building = Mutex<[String: Task<Void, any Error>]>([:])

    /// Loads every live annotation of `store` into a new index.
    public init(store: any ThinningSource) async throws {
        self.store = store
        let (entries, sequence) = try await store.thinningSnapshot()
        // The two indexes from the same rows at once, on two cores.
        async let points = PointIndex(entries: entries)
        index = ThinningIndex(entries: entries, sequence: sequence)
        self.points = await points
        FreedMemory.release()  // the builds' sort buffers, freed: not the indexes' memory
    }

    /// The index, holding every write the store had acknowledged when this was called.
    public func current() async throws -> ThinningIndex {
        let target = store.latestSequence
        while index.sequence < target {
            let before = index.sequence
            let task = running.withLock { running in
                if let running { return running }
                let task = Task { [self] in
                    defer { self.running.withLock { $0 = nil } }
                    try await catchUp(readingTheFeed: true)
                }
                running = task
                return task
            }
            try await task.value
            // The feed holds nothing past `before` (it never should while `target` is announced):
            // answer with what there is rather than wait forever.
            if index.sequence == before, try await store.thinningChanges(after: before, limit: 1).through == before { break }
        }
        return index
    }

    /// How long the background catch-up lets writes gather after the feed grew: under a stream
    /// of writes one catch-up reads (or applies) many. Answers do not wait for it: ``current()``
    /// catches up first.
    static let gathering: Duration = .milliseconds(10)

    /// How long the background catch-up waits for the announcements of changes the feed already
    /// counts (a commit of this process counts before its notification comes back) before it
    /// reads them from the feed instead.
    static let announcementWait: Duration = .milliseconds(100)

    /// Catches up whenever the feed grows, until the task is cancelled: from what the commits
    /// announced while they keep coming, from the feed when they stop short of it.
    public func follow() async {
        var stalled: ContinuousClock.Instant?
        while !Task.isCancelled {
            await store.waitForChanges(after: index.sequence, timeout: Self.followTimeout)
            try? await Task.sleep(for: Self.gathering)
            guard store.announces else {
                do { _ = try await current() } catch {
                    // The next answer retries (and reports) it; do not spin on a failing database.
                    try? await Task.sleep(for: Self.retryPause)
                }
                continue
            }
            do {
                let before = index.sequence
                try await exclusively { [self] in try await catchUp(readingTheFeed: false) }
                if index.sequence >= store.latestSequence || index.sequence > before {
                    stalled = nil
                } else if let since = stalled, ContinuousClock.now - since >= Self.announcementWait {
                    _ = try await current()
                    stalled = nil
                } else if stalled == nil {
                    stalled = .now
                }
            } catch {
                // The next answer retries (and reports) it; do not spin on a failing database.
                try? await Task.sleep(for: Self.retryPause)
            }
        }
    }

    /// Builds the columns of the `properties` the index does not hold yet (aggregates, weights).
    /// The store's rows are read without holding up the index's catch-ups (answers go on
    /// meanwhile), in their turn at `admission`'s gates like any scan of the rows; the column is
    /// then installed between two catch-ups, with the rows the writes since the read began
    /// changed read again, so its values are exactly as new as the index.
    public func prepareColumns(_ properties: Set<String>, admission: [AsyncGate] = []) async throws {
        for property in properties.sorted() where !index.columnNames.contains(property) {
            let build = building.withLock { building in
                if let running = building[property] { return running }
                let task = Task { [self] in
                    defer { self.building.withLock { $0[property] = nil } }
                    try await buildColumn(property, admission: admission)
                }
                building[property] = task
                return task
            }
            // A request that times out or whose client left stops waiting; the build goes on for the next.
            try await build.valueUnlessCancelled()
        }
    }

    private func buildColumn(_ property: String, admission: [AsyncGate]) async throws {
        // Rows read after this position are at least as new as it: taken once the gates let the
        // read go, so the writes to read again are only those during the read.
        let (start, values) = try await AsyncGate.through(admission) { [store] in
            let start = store.latestSequence
            return (start, try await store.numericValues(of: property))
        }
        try await exclusively { [self] in
            guard !index.columnNames.contains(property) else { return }
            // Writes the index applied past `start` may be newer than the values read: read them again.
            var corrections: [ThinningEntry] = []
            var position = start
            while position < index.sequence {
                let page = try await store.thinningChanges(after: position, limit: Self.pageSize)
                guard page.through > position else { break }
                corrections += page.upserts
                position = page.through
            }
            index.addColumn(property, values: values, corrections: corrections)
        }
    }

    /// Runs `body` as the one catch-up running: no write reaches the index meanwhile.
    private func exclusively(_ body: @escaping @Sendable () async throws -> Void) async throws {
        while true {
            let (task, mine) = running.withLock { running -> (Task<Void, any Error>, Bool) in
                if let running { return (running, false) }
                let task = Task { [self] in
                    defer { self.running.withLock { $0 = nil } }
                    try await body()
                }
                running = task
                return (task, true)
            }
            try await task.value
            if mine { return }
        }
    }

    /// How many times ``read(_:admission:_:)`` builds columns before it gives up: a column goes
    /// between its build and its hold only when more than ``ThinningIndex/maxColumns`` others were
    /// built meanwhile.
    static let columnAttempts = 5

    /// `body` on the index, current and holding the columns `options` reads (built in their turn
    /// at `admission`'s gates), none of which is dropped while `body` runs.
    public func read<T>(
        _ options: ThinningOptions, admission: [AsyncGate] = [], _ body: (ThinningIndex) throws(ThinningIndex.MissingColumn) -> T
    ) async throws -> T {
        let properties = options.properties
        var attempt = 1
        while true {
            try await prepareColumns(properties, admission: admission)
            let index = try await current()
            // A column built a moment ago may have gone for others' before it was held: build it again.
            if index.hold(properties) {
                defer { index.release(properties) }
                return try body(index)
            }
            if attempt == Self.columnAttempts { throw ThinningIndex.MissingColumn(property: properties.sorted().first ?? "") }
            attempt += 1
        }
    }

    /// Applies what the commits announced while it continues the index, then (when
    /// `readingTheFeed`) reads the rest from the feed. A full page read from the feed may hold
    /// rows newer than its last entry: the feed is read on until a page ends where its rows do,
    /// so no announced entry puts back an older version of a row the index already holds.
    private func catchUp(readingTheFeed: Bool) async throws {
        var fullPageRead = false
        while true {
            let announced = fullPageRead ? nil : store.announcedChanges(after: index.sequence, limit: Self.pageSize)
            guard announced != nil || readingTheFeed else { return }
            let before = index.sequence
            let (upserts, removals, through) = if let announced { announced } else {
                try await store.thinningChanges(after: before, limit: Self.pageSize)
            }
            // Feed sequences have no holes: a page of `pageSize` entries may have stopped short.
            fullPageRead = announced == nil && through - before >= Int64(Self.pageSize)
            guard through > index.sequence else { return }
            points.apply(upserts: upserts, removals: removals)
            index.apply(upserts: upserts, removals: removals, through: through)
        }
    }
}
