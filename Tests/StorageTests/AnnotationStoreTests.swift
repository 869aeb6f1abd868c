import Annotations
import Foundation
import MapGeometry
import Storage
import Testing
import TestSupport
import Timeline

/// Each test on each engine: SQLite (in memory, and on a file for restarts) and PostgreSQL.
@Suite struct AnnotationStoreTests {
    let shop = AnnotationContent(externalId: "shop-1", coordinate: Coordinate(latitude: 35.68, longitude: 139.76), title: "Shop", kind: "shop")

    @Test(arguments: TestEngine.available) func createReadUpdateDeleteKeepsVersionsAndTombstones(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let created = try await store.create(shop)
        #expect(created.version == 1)
        #expect(try await store.annotation(created.id) == created)

        let renamed = try await store.update(created.id, expectedVersion: 1) { content in
            var content = content
            content.title = "Shop (new)"
            return content
        }
        #expect(renamed.version == 2 && renamed.content.title == "Shop (new)" && renamed.createdAt == created.createdAt)

        // An update that changes nothing is not a write.
        let same = try await store.update(created.id, expectedVersion: nil) { $0 }
        #expect(same.version == 2)

        await #expect(throws: AnnotationStoreError.versionMismatch(created.id, current: 2)) {
            try await store.delete(created.id, expectedVersion: 1)
        }
        try await store.delete(created.id, expectedVersion: 2)
        do {
            _ = try await store.annotation(created.id)
            Issue.record("a deleted annotation came back")
        } catch AnnotationStoreError.gone(let id, _) {
            #expect(id == created.id)
        }
        await #expect(throws: AnnotationStoreError.self) { try await store.delete(created.id, expectedVersion: nil) }

        let changes = try await store.changes(after: 0, limit: 10)
        #expect(changes.map(\.kind) == [.created, .updated, .deleted])
        #expect(changes.map(\.version) == [1, 2, 3])
        #expect(changes.map(\.sequence) == [1, 2, 3])
        #expect(try await store.changes(after: 2, limit: 10).map(\.sequence) == [3])
    }

    @Test(arguments: TestEngine.available) func aStaleVersionChangesNothing(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let created = try await store.create(shop)
        await #expect(throws: AnnotationStoreError.versionMismatch(created.id, current: 1)) {
            _ = try await store.update(created.id, expectedVersion: 7) { var c = $0; c.title = "lost"; return c }
        }
        #expect(try await store.annotation(created.id) == created)
        #expect(try await store.changes(after: 0, limit: 10).count == 1)
    }

    @Test(arguments: TestEngine.available) func externalIdsAreUniqueAmongLiveAnnotationsAndFreedByDelete(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let first = try await store.create(shop)
        await #expect(throws: AnnotationStoreError.externalIdTaken("shop-1")) { _ = try await store.create(shop) }
        try await store.delete(first.id, expectedVersion: nil)
        let second = try await store.create(shop)
        #expect(second.id != first.id && second.id > first.id)
    }

    @Test(arguments: TestEngine.available) func unknownIdsAreNotFound(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let stranger = UUIDv7Generator().next()
        await #expect(throws: AnnotationStoreError.notFound(stranger)) { _ = try await store.annotation(stranger) }
    }

    @Test(arguments: TestEngine.available) func concurrentUpdatesWithIfMatchHaveExactlyOneWinnerPerVersion(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let created = try await store.create(shop)
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<16 {
                group.addTask {
                    do {
                        _ = try await store.update(created.id, expectedVersion: 1) { var c = $0; c.title = "task \(task)"; return c }
                        return true
                    } catch AnnotationStoreError.versionMismatch {
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
        #expect(try await store.annotation(created.id).version == 2)
    }

    /// Creates that need no lookup commit together on PostgreSQL (group commit): each is answered
    /// as stored, and the feed numbers them once each, without a gap, in the order they are stored.
    @Test(arguments: TestEngine.available) func concurrentCreatesAreEachStoredAsAnsweredAndFedOnce(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let answered = try await withThrowingTaskGroup(of: Annotation.self) { group in
            for task in 0..<48 {
                group.addTask {
                    try await store.create(AnnotationContent(coordinate: Coordinate(latitude: Double(task) / 10, longitude: 1), title: "t\(task)"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(answered.map(\.id)).count == 48)
        for annotation in answered { #expect(try await store.annotation(annotation.id) == annotation, "answered as stored") }
        let changes = try await store.changes(after: 0, limit: 100)
        #expect(changes.map(\.sequence) == Array(1...48))
        #expect(Set(changes.map(\.id)) == Set(answered.map(\.id)) && changes.allSatisfy { $0.kind == .created })
    }

    @Test(arguments: TestEngine.available) func idsAreNeverReusedAcrossARestartOnTheSameDatabase(engine: TestEngine) async throws {
        let place = try await engine.freshPlace(persistent: true)
        defer { removeSQLiteFiles(place) }
        var issued: [AnnotationID] = []
        do {
            let store = try await makeStore(engine, place: place)
            for _ in 0..<20 { issued.append(try await store.create(AnnotationContent(coordinate: Coordinate(latitude: 0, longitude: 0))).id) }
            try await store.delete(issued.last!, expectedVersion: nil)
        }
        let reopened = try await makeStore(engine, place: place)
        #expect(try await DatabasePlace.open(place).lastIssuedAnnotationID() == issued.max())
        let next = try await reopened.create(AnnotationContent(coordinate: Coordinate(latitude: 1, longitude: 1)))
        #expect(issued.allSatisfy { $0 < next.id })
        #expect(try await reopened.annotation(issued[0]).content.coordinate == Coordinate(latitude: 0, longitude: 0))
    }
}
