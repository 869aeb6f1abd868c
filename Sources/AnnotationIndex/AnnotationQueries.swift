public import Annotations
public import MapGeometry
public import Timeline

/// The query verbs on the in-memory ``PointIndex`` first and the store's rows second: the index
/// finds where to look (nearest first, or inside the filter's box), and decides alone when the
/// filter reads only the point; otherwise the rows decide the whole filter. The follower is caught
/// up first, so an answer includes every write that had returned before it was asked.
///
/// ``find(matching:)`` and ``findNearest(to:limit:maxDistance:filter:)`` answer ``Found`` items,
/// some only references into the index, so a caller holding copies of annotations (the fast
/// routes' encoded JSON, by id and version) reads rows only for what it lacks;
/// ``page(matching:)`` and ``nearest(to:limit:maxDistance:filter:)`` read them all.
public struct AnnotationQueries: Sendable {
    /// Rows read per store round trip while a filter is applied.
    static let rowBatch = 256

    /// An annotation of an answer: found in the index alone, or read from the store.
    public enum Found: Sendable {
        case indexed(PointReference)
        case read(Annotation)

        public var id: AnnotationID {
            switch self {
            case .indexed(let reference): reference.id
            case .read(let annotation): annotation.id
            }
        }
    }

    private let follower: IndexFollower
    private let store: any AnnotationStore
    /// Where expensive queries (those that read rows to apply a filter, or read without a limit)
    /// wait their turn, each gate in order: the tenant's, so one tenant's load slows only itself,
    /// then the server's, so they never hold every database reader together.
    private let admission: [AsyncGate]

    public init(follower: IndexFollower, store: any AnnotationStore, admission: [AsyncGate] = []) {
        self.follower = follower
        self.store = store
        self.admission = admission
    }

    /// Runs `body` in its turn when `heavy`, at once otherwise.
    private func admitted<T: Sendable>(heavy: Bool, _ body: () async throws -> T) async throws -> T {
        guard heavy else { return try await body() }
        return try await AsyncGate.through(admission, body)
    }

    // MARK: Search

    /// A page of `query`, in id order, `next` the cursor of the page after it: from the index
    /// alone when the filter reads only the point, through it when the filter requires a box,
    /// else the store's own query.
    public func find(matching query: AnnotationQuery) async throws -> (items: [Found], next: AnnotationID?) {
        try await admitted(heavy: query.filter != nil || query.limit == nil) { try await search(query) }
    }

    private func search(_ query: AnnotationQuery) async throws -> (items: [Found], next: AnnotationID?) {
        guard let filter = query.filter, let box = filter.requiredBounds else {
            let page = try await store.annotations(matching: query)
            return (page.annotations.map(Found.read), page.next)
        }
        _ = try await follower.current()
        var candidates = follower.points.references(in: box) { coordinate in
            filter.admits(coordinate) && (query.bbox?.contains(coordinate) ?? true)
        }
        if let after = query.after { candidates.removeFirst(candidates.partitioningIndex { $0.id > after }) }
        guard !filter.readsOnlyThePoint || query.kind != nil else {
            var filling = PageFilling<Found>(limit: query.limit, reads: .once)
            filling.add(candidates) { .indexed($0) }
            return filling.page { $0.id }
        }
        var filling = PageFilling<Found>(limit: query.limit, reads: .chunksOfAtLeast(Self.rowBatch))
        var start = 0
        while start < candidates.count, let read = filling.nextRead {
            try Task.checkCancellation()
            let slice = candidates[start..<min(start + (read.limit ?? candidates.count), candidates.count)].map(\.id)
            start += slice.count
            let rows = try await store.annotations(ids: slice)
            filling.add(slice) { id in
                guard let annotation = rows[id], query.kind.map({ $0 == annotation.content.kind }) ?? true, filter.matches(annotation) else { return nil }
                return .read(annotation)
            }
        }
        return filling.page { $0.id }
    }

    /// A page of `query` with every annotation read (one deleted meanwhile is left out).
    public func page(matching query: AnnotationQuery) async throws -> AnnotationPage {
        let (items, next) = try await find(matching: query)
        return AnnotationPage(annotations: try await read(items), next: next)
    }

    // MARK: Nearest

    /// The `limit` live annotations nearest `point` by WGS84 geodesic distance (metres), nearest
    /// first, ties by id; only those within `maxDistance` and matching `filter` when given.
    public func findNearest(to point: Coordinate, limit: Int, maxDistance: Double?, filter: Filter?) async throws -> [(found: Found, distance: Double)] {
        try await admitted(heavy: filter.map { !$0.readsOnlyThePoint } ?? false) {
            try await nearest(to: point, limit: limit, maxDistance: maxDistance, filtered: filter)
        }
    }

    private func nearest(to point: Coordinate, limit: Int, maxDistance: Double?, filtered filter: Filter?) async throws -> [(found: Found, distance: Double)] {
        _ = try await follower.current()
        var search = follower.points.nearest(to: point, maxDistance: maxDistance) { filter?.admits($0) ?? true }
        guard let filter, !filter.readsOnlyThePoint else {
            var results: [(found: Found, distance: Double)] = []
            while results.count < limit, let next = search.next() { results.append((.indexed(next.reference), next.distance)) }
            return results
        }
        var results: [(found: Found, distance: Double)] = []
        while results.count < limit {
            try Task.checkCancellation()
            // The filter needs the rows: read ahead in batches.
            var batch: [(id: AnnotationID, distance: Double)] = []
            while batch.count < Self.rowBatch, let next = search.next() { batch.append((next.reference.id, next.distance)) }
            guard !batch.isEmpty else { break }
            let rows = try await store.annotations(ids: batch.map(\.id))
            for candidate in batch {
                guard let annotation = rows[candidate.id], filter.matches(annotation) else { continue }
                results.append((.read(annotation), candidate.distance))
                if results.count == limit { break }
            }
        }
        return results
    }

    /// ``findNearest(to:limit:maxDistance:filter:)`` with every annotation read (one deleted meanwhile is left out).
    public func nearest(to point: Coordinate, limit: Int, maxDistance: Double?, filter: Filter?) async throws -> [(annotation: Annotation, distance: Double)] {
        let found = try await findNearest(to: point, limit: limit, maxDistance: maxDistance, filter: filter)
        let rows = try await rows(of: found.map(\.found))
        return found.compactMap { item in item.found.annotation(in: rows).map { ($0, item.distance) } }
    }

    /// The annotations of `items`, in order (one deleted meanwhile is left out).
    public func read(_ items: [Found]) async throws -> [Annotation] {
        let rows = try await rows(of: items)
        return items.compactMap { $0.annotation(in: rows) }
    }

    /// The rows of the items found in the index alone, read in one go.
    private func rows(of items: [Found]) async throws -> [AnnotationID: Annotation] {
        try await store.annotations(ids: items.compactMap { if case .indexed(let reference) = $0 { reference.id } else { nil } })
    }
}

extension AnnotationQueries.Found {
    func annotation(in rows: [AnnotationID: Annotation]) -> Annotation? {
        switch self {
        case .read(let annotation): annotation
        case .indexed(let reference): rows[reference.id]
        }
    }
}
