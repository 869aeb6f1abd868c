import Annotations
import Foundation
import MapGeometry
import Storage
import Synchronization
import Testing
import AnnotationIndex
import Timeline

/// The follower over the real SQLite store: every answered write is in the next answer, and a
/// feed position the database does not hold never makes it loop.
@Suite struct IndexFollowerTests {
    static let world = MapRect(origin: MapPoint(x: 0, y: 0), size: MapSize(width: Mercator.worldSize, height: Mercator.worldSize))
    static let grid = ThinningGrid(zoom: 0, cellSize: 256)

    static func count(_ index: ThinningIndex) -> Int {
        index.thin(world, grid: grid).items.reduce(0) { total, item in
            if case .cluster(let cluster) = item { return total + cluster.count }
            return total + 1
        }
    }

    @Test func aWriteThroughTheStoreIsInTheNextAnswer() async throws {
        let path = NSTemporaryDirectory() + "follower-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try MeridianDatabase.open(path: path)
        let store = try await SQLiteAnnotationStore.open(on: database)
        let follower = try await IndexFollower(store: store)
        // The writes go through another store on the same database (the writer connection); the
        // follower reads the feed on a reader connection of the pool, with no background follow.
        let writer = try await SQLiteAnnotationStore.open(on: database)
        var ids: [AnnotationID] = []
        for i in 0..<50 {
            ids.append(try await writer.create(AnnotationContent(coordinate: Coordinate(latitude: Double(i), longitude: Double(i) * 2))).id)
            #expect(Self.count(try await follower.current()) == i + 1, "create \(i) is in the next answer")
        }
        _ = try await writer.update(ids[0], expectedVersion: .none) { content in
            var moved = content
            moved.coordinate = Coordinate(latitude: -60, longitude: 170)
            return moved
        }
        // One cluster holds the world at zoom 0; its bounds now reach 60° S.
        guard case .cluster(let cluster)? = try await follower.current().thin(Self.world, grid: Self.grid).items.first else {
            Issue.record("no cluster"); return
        }
        let south = Mercator.coordinate(for: MapPoint(x: cluster.bounds.origin.x, y: cluster.bounds.origin.y + cluster.bounds.size.height))
        #expect(abs(south.latitude + 60) < 1e-6, "the move is in the next answer")
        try await writer.delete(ids[1], expectedVersion: .none)
        #expect(Self.count(try await follower.current()) == 49)
        // A batch larger than one catch-up page (``IndexFollower/pageSize``) arrives whole.
        let many = (0..<(IndexFollower.pageSize + 500)).map { AnnotationContent(coordinate: Coordinate(latitude: 10, longitude: Double($0 % 360) - 180)) }
        _ = try await writer.importContents(many)
        #expect(try await follower.current().count == 49 + many.count)
    }

    @Test func aFeedPositionTheDatabaseDoesNotHoldNeverMakesItLoop() async throws {
        let database = try MeridianDatabase.open(path: ":memory:")
        let store = try await SQLiteAnnotationStore.open(on: database)
        _ = try await store.create(AnnotationContent(coordinate: Coordinate(latitude: 1, longitude: 1)))
        let follower = try await IndexFollower(store: store)
        // A signal ahead of the feed (it never should be): the answer comes with what there is.
        database.annotationFeed(for: .default).advance(to: 1_000)
        let answer = Task { try await follower.current().count }
        // A guard against looping forever, generous for a loaded machine (not a timing test).
        let timeout = Task { try await Task.sleep(for: .seconds(120)); answer.cancel() }
        #expect(try await answer.value == 1)
        timeout.cancel()
        // Writes after that still arrive.
        _ = try await store.create(AnnotationContent(coordinate: Coordinate(latitude: 2, longitude: 2)))
        #expect(try await follower.current().count == 2)
    }

    /// A store whose feed rows are always an annotation's newest version (v3, written at entry
    /// `pageSize + 2`) while its commits announced entry `pageSize + 1` (the same annotation at v2)
    /// and the feed ends at `pageSize + 1` as far as this process knows.
    struct AheadOfItsPage: ThinningSource {
        static let id = UUIDv7(high: 0x0190_0000_0000_7001, low: 0x8000_0000_0000_0001)
        static func entry(version: Int) -> ThinningEntry {
            ThinningEntry(id: id, coordinate: Coordinate(latitude: Double(version), longitude: 0), kind: nil, clusteringIdentifier: nil,
                          displayPriority: 0, version: version)
        }
        let page = Int64(IndexFollower.pageSize)
        var latestSequence: Int64 { page + 1 }
        var announces: Bool { true }
        func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64) { ([], 0) }
        func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64) {
            ([Self.entry(version: 3)], [], min(sequence + Int64(limit), latestSequence))
        }
        func announcedChanges(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)? {
            sequence == page ? ([Self.entry(version: 2)], [], page + 1) : nil
        }
        func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)] { [] }
        func waitForChanges(after sequence: Int64, timeout: Duration) async {}
    }

    @Test func aFullPageOfTheFeedIsFollowedByTheFeedNotByOlderAnnouncements() async throws {
        let follower = try await IndexFollower(store: AheadOfItsPage())
        let index = try await follower.current()
        #expect(index.sequence == AheadOfItsPage().latestSequence)
        // The first page (pageSize entries) read the row at v3; the announced entry after it is
        // v2, older than what the index holds: it must come from the feed (v3 again), not go back.
        #expect(index.thin(Self.world, grid: Self.grid).items == [.annotation(AheadOfItsPage.id, AheadOfItsPage.entry(version: 3).point)])
    }

    /// A store whose every commit is announced: entry `n` places annotation `n`.
    final class Announcing: ThinningSource {
        let latest = Mutex<Int64>(0)
        let feedReads = Mutex(0)
        static func entry(_ sequence: Int64) -> ThinningEntry {
            ThinningEntry(id: UUIDv7(high: 0x0190_0000_0000_7000 | UInt64(sequence), low: 0x8000_0000_0000_0001),
                          coordinate: Coordinate(latitude: 1, longitude: Double(sequence)), kind: nil, clusteringIdentifier: nil,
                          displayPriority: 0, version: 1)
        }
        var latestSequence: Int64 { latest.withLock { $0 } }
        var announces: Bool { true }
        func thinningSnapshot() async throws -> (entries: [ThinningEntry], sequence: Int64) { ([], 0) }
        func thinningChanges(after sequence: Int64, limit: Int) async throws -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64) {
            feedReads.withLock { $0 += 1 }
            let through = min(sequence + Int64(limit), latestSequence)
            return (sequence < through ? (sequence + 1...through).map(Self.entry) : [], [], through)
        }
        func announcedChanges(after sequence: Int64, limit: Int) -> (upserts: [ThinningEntry], removals: [AnnotationID], through: Int64)? {
            let through = min(sequence + Int64(limit), latestSequence)
            return sequence < through ? ((sequence + 1...through).map(Self.entry), [], through) : nil
        }
        func numericValues(of property: String) async throws -> [(id: AnnotationID, value: Double)] { [] }
        func waitForChanges(after sequence: Int64, timeout: Duration) async {
            let end = ContinuousClock.now + timeout
            while latestSequence <= sequence, ContinuousClock.now < end {
                do { try await Task.sleep(for: .milliseconds(1)) } catch { return }  // cancelled: the follower stops
            }
        }
    }

    @Test func aFollowerOverAStoreThatAnnouncesAppliesTheAnnouncementsWithoutReadingTheFeed() async throws {
        let store = Announcing()
        let follower = try await IndexFollower(store: store)
        let following = Task { await follower.follow() }
        defer { following.cancel() }
        for sequence in 1...20 as ClosedRange<Int64> {
            store.latest.withLock { $0 = sequence }
            try await Task.sleep(for: .milliseconds(2))
        }
        // Not a timing test: the background catch-up gets as long as a loaded machine needs.
        let end = ContinuousClock.now + .seconds(60)
        while follower.index.sequence < 20, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(5)) }
        #expect(follower.index.sequence == 20)
        #expect(store.feedReads.withLock { $0 } == 0, "every change was announced: the background catch-up applied them, reading nothing")
        following.cancel()
        await following.value
    }
}
