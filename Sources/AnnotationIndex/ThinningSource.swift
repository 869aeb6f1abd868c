public import Annotations

/// What the thinning index needs from a store: a snapshot to start from, the changes after a feed
/// position, and a way to wait for the next one. The store's change feed is the truth; the index
/// is a view of it that ``IndexFollower`` keeps current.
public protocol ThinningSource: Sendable {
    /// The sequence of the last committed change (0 for none); a write's change counts once it returns.
    var latestSequence: Int64 { get }
    /// Every live annotation as the index keeps it, and the feed position they are current to
    /// (rows may be newer than that position; re-applying a change is harmless).
    func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64)
    /// The current entries of annotations changed after `sequence` and the ids deleted since, read
    /// in one transaction, at most `limit` feed entries' worth; `through` is the last entry read
    /// (`sequence` itself when the feed holds nothing newer).
    func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)
    /// The changes after `sequence` as their commits announced them (each annotation as the last
    /// of them left it; at most `limit` feed entries), when this process holds them without reading
    /// the store; nil otherwise, and ``thinningChanges(after:limit:)`` reads them.
    func announcedChanges(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)?
    /// Every live annotation's value of the free property `property` where it is a finite number
    /// (a column of the index is built from it).
    func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)]
    /// Returns once the feed has an entry after `sequence`, or after `timeout`, whichever is first.
    func waitForChanges(after sequence: Int64, timeout: Duration) async
    /// Whether this process hears the store's commits' changes (``announcedChanges(after:limit:)``).
    /// A requirement, so a follower holding any source asks the source's own answer.
    var announces: Bool { get }
}

extension ThinningSource {
    /// A store whose commits announce nothing to this process.
    public var announces: Bool { false }
    /// None: a store whose commits announce nothing to this process is read.
    public func announcedChanges(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)? { nil }
}
