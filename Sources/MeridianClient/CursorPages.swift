/// The pages of a listing that follows `nextCursor` (a search, a cluster's leaves), fetched one at
/// a time as the loop asks: each element is one page's items, and the sequence ends after the
/// page that has no `nextCursor`. Breaking out of the loop fetches nothing more.
///
/// ```swift
/// for try await page in meridian.search("kind = 'shop'") {
///     cache.insert(contentsOf: page)
/// }
/// ```
public struct CursorPages<Item: Sendable>: AsyncSequence, Sendable {
    /// One page: its items and the cursor of the next page (nil on the last).
    public typealias Fetch = @Sendable (_ cursor: String?) async throws -> (items: [Item], nextCursor: String?)

    let fetch: Fetch

    /// Pages that `fetch` reads, the first with a nil cursor.
    public init(_ fetch: @escaping Fetch) { self.fetch = fetch }

    public func makeAsyncIterator() -> Iterator { Iterator(fetch: fetch) }

    /// Fetches the next page when asked.
    public struct Iterator: AsyncIteratorProtocol {
        let fetch: Fetch
        var cursor: String?
        var finished = false

        public mutating func next() async throws -> [Item]? {
            guard !finished else { return nil }
            let page = try await fetch(cursor)
            cursor = page.nextCursor
            finished = page.nextCursor == nil
            return page.items
        }
    }
}

extension Meridian {
    /// The live annotations a CQL2-Text filter matches (`kind = 'shop' AND title LIKE 'Mar%'`), in
    /// creation order, `pageSize` (1…1 000, default 100) at a time. Writes meanwhile never show an
    /// item twice nor skip one that existed throughout.
    public func search(_ filter: String, pageSize: Int? = nil) -> CursorPages<Components.Schemas.Annotation> {
        search(filter: .case3(filter), pageSize: pageSize)
    }

    /// The live annotations `filter` (CQL2-JSON, a boolean, or CQL2-Text) matches, a page at a time.
    public func search(filter: Components.Schemas.CQL2Filter, pageSize: Int? = nil) -> CursorPages<Components.Schemas.Annotation> {
        let api = self.api
        return CursorPages { cursor in
            let output = try await api.searchAnnotations(body: .json(.init(filter: filter, limit: pageSize, cursor: cursor)))
            guard case .ok(let ok) = output else { throw MeridianError(answer: output) }
            let page = try ok.body.json
            return (page.annotations, page.nextCursor)
        }
    }

    /// A cluster's annotations, whole, `pageSize` (1…1 000, default 100) at a time: what a
    /// callout listing the cluster's members shows.
    public func leaves(ofCluster clusterID: String, pageSize: Int? = nil) -> CursorPages<Components.Schemas.Annotation> {
        let api = self.api
        return CursorPages { cursor in
            let output = try await api.getClusterLeaves(path: .init(clusterId: clusterID), query: .init(limit: pageSize, cursor: cursor))
            guard case .ok(let ok) = output else { throw MeridianError(answer: output) }
            let page = try ok.body.json
            return (page.annotations, page.nextCursor)
        }
    }
}
