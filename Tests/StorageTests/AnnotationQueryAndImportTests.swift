import Annotations
import Foundation
import MapGeometry
import Storage
import Synchronization
import Testing
import TestSupport
import Timeline

/// Idempotency keys, upserts, bbox pages, imports and the long-polled feed, on each engine.
@Suite struct AnnotationQueryAndImportTests {
    func pin(_ latitude: Double, _ longitude: Double, externalId: String? = nil, kind: String? = nil) -> AnnotationContent {
        AnnotationContent(externalId: externalId, coordinate: Coordinate(latitude: latitude, longitude: longitude), kind: kind)
    }

    @Test(arguments: TestEngine.available) func anIdempotencyKeyReplaysTheFirstAnswerAndRefusesOtherContent(engine: TestEngine) async throws {
        let place = try await engine.freshPlace(persistent: true)
        defer { removeSQLiteFiles(place) }
        let content = pin(48.85, 2.35)
        let key = IdempotencyKey(key: "k-1", fingerprint: content.fingerprint)
        let first = try await makeStore(engine, place: place).create(content, idempotencyKey: key)
        #expect(!first.replayed)

        // After a restart on the same file the key still replays, and nothing new is written.
        let store = try await makeStore(engine, place: place)
        let again = try await store.create(content, idempotencyKey: key)
        #expect(again.replayed && again.annotation == first.annotation)
        #expect(try await store.changes(after: 0, limit: 10).count == 1)

        let other = pin(0, 0)
        await #expect(throws: AnnotationStoreError.idempotencyKeyReused("k-1")) {
            _ = try await store.create(other, idempotencyKey: IdempotencyKey(key: "k-1", fingerprint: other.fingerprint))
        }
        #expect(try await store.annotations(matching: AnnotationQuery()).annotations.count == 1)
    }

    @Test(arguments: TestEngine.available) func anIdempotencyKeyExpiresAfterADay(engine: TestEngine) async throws {
        let clock = TestClock()
        let store = try await makeStore(engine, now: clock.now)
        let content = pin(1, 1)
        let key = IdempotencyKey(key: "k", fingerprint: content.fingerprint)
        let first = try await store.create(content, idempotencyKey: key).annotation
        clock.advance(by: IdempotencyKey.lifetime + 1)
        let later = try await store.create(content, idempotencyKey: key)
        #expect(!later.replayed && later.annotation.id != first.id)
    }

    @Test(arguments: TestEngine.available) func upsertCreatesReplacesAndReportsUnchanged(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let created = try await store.upsert(externalId: "a", pin(1, 1, externalId: "a"), expectedVersion: nil)
        #expect(created.status == .created && created.annotation.version == 1)
        let same = try await store.upsert(externalId: "a", pin(1, 1, externalId: "a"), expectedVersion: 1)
        #expect(same.status == .unchanged && same.annotation == created.annotation)
        let moved = try await store.upsert(externalId: "a", pin(2, 2, externalId: "a"), expectedVersion: nil)
        #expect(moved.status == .updated && moved.annotation.version == 2 && moved.annotation.id == created.annotation.id)
        await #expect(throws: AnnotationStoreError.versionMismatch(created.annotation.id, current: 2)) {
            _ = try await store.upsert(externalId: "a", pin(3, 3, externalId: "a"), expectedVersion: 1)
        }
        await #expect(throws: AnnotationStoreError.externalIdNotFound("b")) {
            _ = try await store.upsert(externalId: "b", pin(3, 3, externalId: "b"), expectedVersion: 1)
        }
        #expect(try await store.annotation(created.annotation.id).content.coordinate == Coordinate(latitude: 2, longitude: 2))
    }

    @Test(arguments: TestEngine.available) func aBboxAcrossTheAntimeridianHoldsBothSides(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let east = try await store.create(pin(-17.8, 179.9))
        let west = try await store.create(pin(-17.8, -179.9))
        _ = try await store.create(pin(-17.8, 0))
        _ = try await store.create(pin(10, 179.9))
        let fiji = try BoundingBox(parsing: "179,-20,-179,-15")
        #expect(fiji.crossesAntimeridian)
        let page = try await store.annotations(matching: AnnotationQuery(bbox: fiji))
        #expect(page.annotations.map(\.id) == [east.id, west.id])
    }

    @Test(arguments: TestEngine.available) func pagesByCursorAreStableUnderConcurrentInserts(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        var created: [AnnotationID] = []
        for index in 0..<25 { created.append(try await store.create(pin(Double(index), 0, kind: index.isMultiple(of: 2) ? "even" : "odd")).id) }
        var seen: [AnnotationID] = []
        var cursor: AnnotationID?
        repeat {
            let page = try await store.annotations(matching: AnnotationQuery(kind: "even", after: cursor, limit: 5))
            seen += page.annotations.map(\.id)
            cursor = page.next
            _ = try await store.create(pin(89, 0, kind: "odd"))  // inserted while paging
            if cursor == nil { #expect(page.annotations.count <= 5) }
        } while cursor != nil
        #expect(seen == created.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element))
    }

    @Test(arguments: TestEngine.available) func importUpsertsByExternalIdInOneTransaction(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let existing = try await store.create(pin(1, 1, externalId: "x"))
        let untouched = try await store.create(pin(2, 2, externalId: "y"))
        let results = try await store.importContents([pin(5, 5, externalId: "x"), pin(2, 2, externalId: "y"), pin(3, 3), pin(4, 4, externalId: "z")])
        #expect(results.map(\.status) == [.updated, .unchanged, .created, .created])
        #expect(results[0].id == existing.id && results[1].id == untouched.id)
        #expect(try await store.annotation(existing.id).version == 2)
        #expect(try await store.annotation(untouched.id) == untouched)
        #expect(try await store.changes(after: 2, limit: 10).map(\.kind) == [.updated, .created, .created])
    }

    /// An import is its features' upserts in order: one that repeats an external id updates what
    /// the earlier one wrote (or leaves it unchanged), within a chunk and across chunks.
    @Test(arguments: TestEngine.available) func featuresSharingAnExternalIdApplyInOrder(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let results = try await store.importContents([pin(1, 1, externalId: "a"), pin(2, 2, externalId: "a"), pin(2, 2, externalId: "a"), pin(3, 3)])
        #expect(results.map(\.status) == [.created, .updated, .unchanged, .created])
        #expect(results[1].id == results[0].id && results[2].id == results[0].id)
        let stored = try await store.annotation(results[0].id)
        #expect(stored.version == 2 && stored.content.coordinate == Coordinate(latitude: 2, longitude: 2))
        let chunks = Mutex([[ImportedFeature(content: pin(7, 7, externalId: "b"))], [ImportedFeature(content: pin(8, 8, externalId: "b"))]])
        let across = try await store.importFeatures(chunks: { chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        #expect(across.map(\.status) == [.created, .updated] && across[0].id == across[1].id)
    }

    /// A feature whose `id` names a live annotation of the tenant writes that one, with or without
    /// an external id (so an export imports back unchanged); an id naming nothing, a deleted
    /// annotation or another tenant's creates a new one under a fresh id.
    @Test(arguments: TestEngine.available) func aFeatureNamingAnAnnotationByIdWritesIt(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let plain = try await store.create(pin(1, 1))
        let keyed = try await store.create(pin(2, 2, externalId: "k"))
        let gone = try await store.create(pin(3, 3))
        try await store.delete(gone.id, expectedVersion: .none)
        let results = try await store.importFeatures([
            ImportedFeature(id: plain.id, content: pin(1, 1)),
            ImportedFeature(id: keyed.id, content: pin(2, 2, externalId: "renamed")),
            ImportedFeature(id: gone.id, content: pin(3, 3)),
            ImportedFeature(content: pin(4, 4, externalId: "k")),
            ImportedFeature(id: plain.id, content: pin(5, 5)),
        ])
        #expect(results.map(\.status) == [.unchanged, .updated, .created, .created, .updated])
        #expect(results[0].id == plain.id && results[1].id == keyed.id && results[4].id == plain.id)
        #expect(results[2].id != gone.id, "a deleted id is never revived")
        // `k` was released by the rename earlier in the same import: the fourth feature is a new annotation.
        #expect(results[3].id != keyed.id)
        #expect(try await store.annotation(keyed.id).content.externalId == "renamed")
        #expect(try await store.annotation(plain.id).version == 2)
    }

    /// A feature naming one annotation by id and another's external id is a conflict: nothing is stored.
    @Test(arguments: TestEngine.available) func aFeatureTakingAnotherAnnotationsExternalIdIsRefused(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let plain = try await store.create(pin(1, 1))
        _ = try await store.create(pin(2, 2, externalId: "taken"))
        await #expect(throws: AnnotationStoreError.externalIdTaken("taken")) {
            try await store.importFeatures([ImportedFeature(content: pin(9, 9)), ImportedFeature(id: plain.id, content: pin(1, 1, externalId: "taken"))])
        }
        #expect(try await store.annotations(matching: AnnotationQuery(limit: 10)).annotations.count == 2)
    }

    @Test(arguments: TestEngine.available) func aLongPollWakesOnTheNextWriteAndTimesOutWithout(engine: TestEngine) async throws {
        let store = try await makeStore(engine)
        let clock = ContinuousClock()
        let idle = clock.now
        await store.waitForChanges(after: 0, timeout: .milliseconds(100))
        #expect(clock.now - idle >= .milliseconds(100))

        let start = clock.now
        // Woken by the write, not by the timeout: far shorter than it even on a loaded machine.
        async let woken: Void = store.waitForChanges(after: 0, timeout: .seconds(120))
        try await Task.sleep(for: .milliseconds(50))
        _ = try await store.create(pin(0, 0))
        await woken
        #expect(clock.now - start < .seconds(60))
        // Already past: returns at once.
        await store.waitForChanges(after: 0, timeout: .seconds(30))
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
    var now: @Sendable () -> Date { { self.current.withLock { $0 } } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// A store of `engine` on a fresh place, or on `place` (a reopening), its ids after the greatest stored.
func makeStore(_ engine: TestEngine, place: String? = nil, now: @escaping @Sendable () -> Date = Date.init) async throws -> any ServedAnnotationStore {
    let place = if let place { place } else { try await engine.freshPlace() }
    return try await DatabasePlace.open(place).annotations(now: now)
}

/// Removes a SQLite file test's database and its WAL (a PostgreSQL place goes with the throw-away server).
func removeSQLiteFiles(_ place: String) {
    guard !PostgresLocation.isPostgres(place), place != ":memory:" else { return }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: place + suffix) }
}
