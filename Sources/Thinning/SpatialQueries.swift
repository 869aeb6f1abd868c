public import Annotations
public import MapGeometry

/// The query verbs on the in-memory ``PointIndex`` first and the store's rows second: the index
/// finds where to look (nearest first, or inside the filter's box), the rows decide the whole
/// filter. The follower is caught up first, so an answer includes every write that had returned
/// before it was asked.
public struct SpatialQueries: Sendable {
    /// Rows read per store round trip while a filter is applied.
    static let rowBatch = 256

    private let follower: ThinningFollower
    private let store: any AnnotationStore

    public init(follower: ThinningFollower, store: any AnnotationStore) {
        self.follower = follower
        self.store = store
    }

    /// The `limit` live annotations nearest `point` by WGS84 geodesic distance (metres), nearest
    /// first, ties by id; only those within `maxDistance` and matching `filter` when given.
    public func nearest(to point: Coordinate, limit: Int, maxDistance: Double?, filter: Filter?) async throws -> [(annotation: Annotation, distance: Double)] {
        _ = try await follower.current()
        var search = follower.points.nearest(to: point, maxDistance: maxDistance) { filter?.admits($0) ?? true }
        var results: [(annotation: Annotation, distance: Double)] = []
        while results.count < limit {
            // Without a filter every candidate is an answer; with one, read ahead in batches.
            let wanted = filter == nil ? limit - results.count : Self.rowBatch
            var batch: [(id: AnnotationID, distance: Double)] = []
            while batch.count < wanted, let next = search.next() { batch.append(next) }
            guard !batch.isEmpty else { break }
            let rows = try await store.annotations(ids: batch.map(\.id))
            for candidate in batch {
                // A row deleted since the index was read is gone; one that moved is measured again by the next answer.
                guard let annotation = rows[candidate.id], filter?.matches(annotation) ?? true else { continue }
                results.append((annotation, candidate.distance))
                if results.count == limit { break }
            }
        }
        return results
    }

    /// A page of `query`: through the index when its filter requires a box (a spatial predicate
    /// that must hold), else the store's own query (by id, through its bbox index when it has one).
    public func page(matching query: AnnotationQuery) async throws -> AnnotationPage {
        guard let filter = query.filter, let box = filter.requiredBounds else { return try await store.annotations(matching: query) }
        _ = try await follower.current()
        var candidates = follower.points.ids(in: box) { coordinate in
            filter.admits(coordinate) && (query.bbox?.contains(coordinate) ?? true)
        }
        if let after = query.after {
            let first = candidates.partitioningIndex { $0 > after }
            candidates.removeFirst(first)
        }
        // One more than the page tells whether there is a next page.
        let wanted = query.limit.map { $0 + 1 } ?? .max
        var annotations: [Annotation] = []
        var start = 0
        while annotations.count < wanted, start < candidates.count {
            let slice = Array(candidates[start..<min(start + max(Self.rowBatch, wanted - annotations.count), candidates.count)])
            start += slice.count
            let rows = try await store.annotations(ids: slice)
            for id in slice {
                guard let annotation = rows[id], query.kind.map({ $0 == annotation.content.kind }) ?? true, filter.matches(annotation) else { continue }
                annotations.append(annotation)
                if annotations.count == wanted { break }
            }
        }
        guard let limit = query.limit, annotations.count > limit else { return AnnotationPage(annotations: annotations, next: nil) }
        annotations.removeLast(annotations.count - limit)
        return AnnotationPage(annotations: annotations, next: annotations.last?.id)
    }
}

extension Array {
    /// The first index whose element passes `isPast` (elements ordered so that once one passes, all after do).
    func partitioningIndex(where isPast: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if isPast(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
