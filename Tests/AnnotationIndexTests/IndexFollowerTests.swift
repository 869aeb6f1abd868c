import Annotations
import Foundation
import MapGeometry
import Storage
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
}
