import Annotations
import Foundation
import MapGeometry
import Testing
import Timeline

/// The identity rules both stores execute, planned without a database.
@Suite struct AnnotationWriteTests {
    let ids = UUIDv7Generator()
    let shop = AnnotationContent(externalId: "shop-1", coordinate: Coordinate(latitude: 35.68, longitude: 139.76), title: "Shop", kind: "shop")
    let created = Date(timeIntervalSince1970: 1_700_000_000)
    let later = Date(timeIntervalSince1970: 1_700_000_060)

    /// A live annotation at `version`.
    func stored(version: Int = 1) -> Annotation {
        Annotation(id: ids.next(), content: shop, version: version, createdAt: created, updatedAt: created)
    }

    func renamed(_ content: AnnotationContent) -> AnnotationContent {
        var content = content
        content.title = "Shop (new)"
        return content
    }

    @Test func aCreateIsVersionOneUnderTheGivenIdAndChecksItsExternalId() throws {
        let id = ids.next()
        let write = AnnotationWrite.create(shop, id: id, at: created)
        #expect(write.step == .insert(Annotation(id: id, content: shop, version: 1, createdAt: created, updatedAt: created)))
        #expect(write.status == .created && write.externalIdToCheck == "shop-1")
        #expect(write.change?.kind == .created && write.change?.version == 1 && write.change?.at == created)
        #expect(AnnotationWrite.create(AnnotationContent(coordinate: shop.coordinate), id: id, at: created).externalIdToCheck == nil)
    }

    @Test func anUpdateAdvancesTheVersionByOneAndKeepsTheCreationTime() throws {
        let annotation = stored(version: 4)
        let write = try AnnotationWrite.update(.live(annotation), expectedVersion: 4, at: later, change: renamed)
        guard case .update(let written) = write.step else { Issue.record("not an update: \(write.step)"); return }
        #expect(written.id == annotation.id && written.version == 5 && written.content.title == "Shop (new)")
        #expect(written.createdAt == created && written.updatedAt == later)
        #expect(write.change?.kind == .updated && write.change?.version == 5 && write.status == .updated)
    }

    @Test func unchangedContentIsNotAWrite() throws {
        let annotation = stored(version: 2)
        let write = try AnnotationWrite.update(.live(annotation), expectedVersion: nil, at: later) { $0 }
        #expect(write.step == .unchanged(annotation) && write.change == nil && write.status == .unchanged)
        #expect(write.externalIdToCheck == nil)
    }

    @Test func anIfMatchThatNamesOtherVersionsChangesNothing() {
        let annotation = stored(version: 2)
        #expect(throws: AnnotationStoreError.versionMismatch(annotation.id, current: 2)) {
            try AnnotationWrite.update(.live(annotation), expectedVersion: .oneOf([1, 3]), at: later, change: renamed)
        }
        #expect(throws: AnnotationStoreError.versionMismatch(annotation.id, current: 2)) {
            try AnnotationWrite.delete(.live(annotation), expectedVersion: 1, at: later)
        }
        #expect(throws: AnnotationStoreError.versionMismatch(annotation.id, current: 2)) {
            try AnnotationWrite.update(.live(annotation), expectedVersion: .oneOf([]), at: later, change: renamed)
        }
        #expect((try? AnnotationWrite.update(.live(annotation), expectedVersion: .exists, at: later, change: renamed)) != nil)
    }

    @Test func aDeleteLeavesATombstoneOneVersionLater() throws {
        let annotation = stored(version: 2)
        let write = try AnnotationWrite.delete(.live(annotation), expectedVersion: 2, at: later)
        #expect(write.step == .delete(annotation, at: later))
        #expect(write.change?.kind == .deleted && write.change?.id == annotation.id && write.change?.version == 3 && write.change?.at == later)
        #expect(write.externalIdToCheck == nil)
    }

    @Test func aDeletedIdStaysGoneAndAnUnknownOneIsNotFound() {
        let id = ids.next()
        #expect(throws: AnnotationStoreError.gone(id, deletedAt: later)) {
            try AnnotationWrite.update(.deleted(id, deletedAt: later), expectedVersion: nil, at: later, change: renamed)
        }
        #expect(throws: AnnotationStoreError.gone(id, deletedAt: later)) {
            try AnnotationWrite.delete(.deleted(id, deletedAt: later), expectedVersion: nil, at: later)
        }
        #expect(throws: AnnotationStoreError.notFound(id)) { try AnnotationWrite.delete(.absent(id), expectedVersion: nil, at: later) }
        #expect(throws: AnnotationStoreError.notFound(id)) { try StoredAnnotation.absent(id).live() }
    }

    @Test func anUpsertCreatesWithoutACondition() throws {
        let id = ids.next()
        let write = try AnnotationWrite.upsert(externalId: "shop-1", shop, existing: nil, expectedVersion: nil, at: created) { id }
        #expect(write.step == .insert(Annotation(id: id, content: shop, version: 1, createdAt: created, updatedAt: created)))
        #expect(write.status == .created)
    }

    @Test(arguments: [VersionCondition.exists, 1, .oneOf([1, 2])])
    func anUpsertWithAConditionNeedsALiveAnnotation(condition: VersionCondition) {
        #expect(throws: AnnotationStoreError.externalIdNotFound("shop-1")) {
            try AnnotationWrite.upsert(externalId: "shop-1", shop, existing: nil, expectedVersion: condition, at: created) { ids.next() }
        }
    }

    @Test func anUpsertReplacesTheLiveAnnotationOrReportsUnchanged() throws {
        let annotation = stored(version: 1)
        let unchanged = try AnnotationWrite.upsert(externalId: "shop-1", shop, existing: annotation, expectedVersion: 1, at: later) { ids.next() }
        #expect(unchanged.step == .unchanged(annotation) && unchanged.status == .unchanged)
        let updated = try AnnotationWrite.upsert(externalId: "shop-1", renamed(shop), existing: annotation, expectedVersion: nil, at: later) { ids.next() }
        #expect(updated.status == .updated && updated.annotation.id == annotation.id && updated.annotation.version == 2)
        #expect(throws: AnnotationStoreError.versionMismatch(annotation.id, current: 1)) {
            try AnnotationWrite.upsert(externalId: "shop-1", renamed(shop), existing: annotation, expectedVersion: 2, at: later) { ids.next() }
        }
    }

    @Test func anExternalIdHasOneLiveOwner() throws {
        let annotation = stored()
        let create = AnnotationWrite.create(shop, id: ids.next(), at: created)
        #expect(throws: AnnotationStoreError.externalIdTaken("shop-1")) { try create.admit(externalIdOwner: annotation.id) }
        try create.admit(externalIdOwner: nil)
        var moved = renamed(shop)
        moved.externalId = "shop-2"
        let update = AnnotationWrite.replace(annotation, with: moved, at: later)
        #expect(update.externalIdToCheck == "shop-2")
        try update.admit(externalIdOwner: annotation.id)  // its own
        #expect(throws: AnnotationStoreError.externalIdTaken("shop-2")) { try update.admit(externalIdOwner: ids.next()) }
    }

    @Test func anIdempotencyKeyReplaysTheFirstAnswerForTheSameContentOnly() throws {
        let key = IdempotencyKey(key: "k1", fingerprint: shop.fingerprint)
        let id = ids.next()
        #expect(try AnnotationWrite.replay(key, stored: nil, content: shop) == nil)
        let first = try AnnotationWrite.replay(key, stored: (shop.fingerprint, id, created), content: shop)
        #expect(first == Annotation(id: id, content: shop, version: 1, createdAt: created, updatedAt: created))
        #expect(throws: AnnotationStoreError.idempotencyKeyReused("k1")) {
            try AnnotationWrite.replay(key, stored: ("other", id, created), content: shop)
        }
        #expect(throws: AnnotationStoreError.idempotencyKeyReused("k1")) {
            try AnnotationWrite.replay(key, stored: (shop.fingerprint, nil, created), content: shop)
        }
        #expect(IdempotencyKey.oldestKept(at: later) == later.addingTimeInterval(-24 * 60 * 60))
    }
}
