/// The page-filling loop's rules, once for every reader (SQLite's and PostgreSQL's queries, the
/// index's filtered search): rows are read in order, one more than the page's limit tells
/// whether there is a next page, and a filter that leaves rows out makes the reader read on,
/// chunk by chunk, until the page is full or the rows run out. A reader runs
///
///     var filling = PageFilling<Annotation>(limit: query.limit, reads: .chunks(of: 1_000))
///     while let read = filling.nextRead {
///         let rows = try fetch(after: cursor, limit: read.limit)
///         filling.add(rows) { filter.matches($0) ? $0 : nil }
///     }
///     return filling.page { $0.id }
public struct PageFilling<Item> {
    /// How a reader reads its rows.
    public enum Reads: Sendable {
        /// One read of the page and the row past it: the reader limits, nothing is left out.
        case once
        /// Reads of this many rows, some left out, until the page is full or the rows run out.
        case chunks(of: Int)
        /// As ``chunks(of:)``, but each read asks for at least what the page still lacks (all the rest without a limit).
        case chunksOfAtLeast(Int)
    }

    /// One read the reader makes next.
    public struct Read: Sendable {
        /// At most this many rows; nil for all of them.
        public let limit: Int?
    }

    /// Most items on the page; nil for all.
    public let limit: Int?
    private let reads: Reads
    /// The items kept so far, in order (at most one more than ``limit``).
    public private(set) var items: [Item] = []
    private var done = false

    /// An empty page of at most `limit` items, read as `reads` says.
    public init(limit: Int?, reads: Reads) {
        self.limit = limit
        self.reads = reads
    }

    /// Items to keep: one more than the page tells whether there is a next page.
    private var wanted: Int? { limit.map { $0 + 1 } }

    /// The next read, or nil once the page is full or the rows ran out.
    public var nextRead: Read? {
        if done { return nil }
        switch reads {
        case .once: return Read(limit: wanted)
        case .chunks(let size): return Read(limit: size)
        case .chunksOfAtLeast(let size): return Read(limit: wanted.map { max(size, $0 - items.count) })
        }
    }

    /// Keeps what `keep` makes of `rows` (the rows of ``nextRead``, in order; nil leaves a row
    /// out) until the page is full; a read that came back short means the rows ran out.
    public mutating func add<Row>(_ rows: [Row], keeping keep: (Row) throws -> Item?) rethrows {
        let asked = nextRead?.limit
        for row in rows {
            if let wanted, items.count >= wanted { break }
            if let item = try keep(row) { items.append(item) }
        }
        let full = wanted.map { items.count >= $0 } ?? false
        if case .once = reads { done = true }
        if full || asked.map({ rows.count < $0 }) ?? true { done = true }
    }

    /// The page: at most ``limit`` items, and the id of the last one as the next page's cursor
    /// when more were found (nil on the last page).
    public func page(id: (Item) -> AnnotationID) -> (items: [Item], next: AnnotationID?) {
        guard let limit, items.count > limit else { return (items, nil) }
        let kept = Array(items.prefix(limit))
        return (kept, kept.last.map(id))
    }
}

extension PageFilling where Item == Annotation {
    /// The page of annotations, cut to the limit.
    public var annotationPage: AnnotationPage {
        let (annotations, next) = page { $0.id }
        return AnnotationPage(annotations: annotations, next: next)
    }
}
