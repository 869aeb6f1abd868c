public import Foundation
public import Timeline

/// What one annotation write does, decided from the stored rows it read and nothing else: the
/// identity rules every engine shares (an id is issued once and never revived, a version
/// advances by one per change, `If-Match` is checked against the stored version, an external id
/// has one live owner, unchanged content is not a write). A store reads what the plan needs,
/// plans, applies ``step`` (checking ``externalIdToCheck``'s owner first), records ``change`` in
/// its feed and commits, all in one transaction: plan → apply → commit, as Tracking's plans.
public struct AnnotationWrite: Hashable, Sendable {
    /// The row change a store makes.
    public enum Step: Hashable, Sendable {
        /// A new row: the annotation at version 1.
        case insert(Annotation)
        /// The row's new content, version and update time.
        case update(Annotation)
        /// The row of this (last live) annotation removed and a tombstone left, one version later, deleted `at`.
        case delete(Annotation, at: Date)
        /// Nothing: the stored annotation already holds the content.
        case unchanged(Annotation)
    }

    /// The row change.
    public let step: Step
    /// The external id whose live owner the store reads and passes to ``admit(externalIdOwner:)``
    /// before applying ``step``; nil when the write needs no such check.
    public let externalIdToCheck: String?

    private init(_ step: Step, checking externalId: String? = nil) {
        self.step = step
        externalIdToCheck = externalId
    }

    /// The annotation as the write leaves it; for a delete, the last live one.
    public var annotation: Annotation {
        switch step {
        case .insert(let annotation), .update(let annotation), .unchanged(let annotation), .delete(let annotation, _): annotation
        }
    }

    /// A delete's tombstone version: one past the last live version.
    public static func tombstoneVersion(of annotation: Annotation) -> Int {
        annotation.version + 1
    }

    /// What an upsert or an import reports; a delete reports `updated` (it answers nothing).
    public var status: WriteStatus {
        switch step {
        case .insert: .created
        case .update, .delete: .updated
        case .unchanged: .unchanged
        }
    }

    /// The feed entry the write records (its sequence is the store's); nil when nothing changes.
    public var change: (kind: AnnotationChange.Kind, id: AnnotationID, version: Int, at: Date)? {
        switch step {
        case .insert(let annotation): (.created, annotation.id, annotation.version, annotation.createdAt)
        case .update(let annotation): (.updated, annotation.id, annotation.version, annotation.updatedAt)
        case .delete(let annotation, let at): (.deleted, annotation.id, Self.tombstoneVersion(of: annotation), at)
        case .unchanged: nil
        }
    }

    /// Throws ``AnnotationStoreError/externalIdTaken(_:)`` unless the live annotation holding
    /// ``externalIdToCheck`` (`owner`, nil for none) is the one this write writes.
    public func admit(externalIdOwner owner: AnnotationID?) throws {
        guard let externalId = externalIdToCheck, let owner, owner != annotation.id else { return }
        throw AnnotationStoreError.externalIdTaken(externalId)
    }
}

// MARK: - Planning

extension AnnotationWrite {
    /// A new annotation: `content` at version 1 under `id` (a fresh id from the store's source,
    /// never one issued before), created and updated `at`; its external id must be free.
    public static func create(_ content: AnnotationContent, id: AnnotationID, at: Date) -> AnnotationWrite {
        AnnotationWrite(.insert(Annotation(id: id, content: content, version: 1, createdAt: at, updatedAt: at)), checking: content.externalId)
    }

    /// `annotation` given `content`: unchanged when it already holds it (byte for byte), else the
    /// next version, updated `at`, whose external id must be free or its own.
    public static func replace(_ annotation: Annotation, with content: AnnotationContent, at: Date) -> AnnotationWrite {
        guard !content.isIdentical(to: annotation.content) else { return AnnotationWrite(.unchanged(annotation)) }
        var changed = annotation
        changed.content = content
        changed.version += 1
        changed.updatedAt = at
        return AnnotationWrite(.update(changed), checking: content.externalId)
    }

    /// `PATCH`/`PUT` by id: `change` applied to the stored annotation when its version meets `expectedVersion`.
    /// - Throws: ``AnnotationStoreError/gone(_:deletedAt:)``, ``AnnotationStoreError/notFound(_:)``,
    ///   ``AnnotationStoreError/versionMismatch(_:current:)``, or what `change` throws.
    public static func update(
        _ stored: StoredAnnotation, expectedVersion: VersionCondition, at: Date, change: (AnnotationContent) throws -> AnnotationContent
    ) throws -> AnnotationWrite {
        let annotation = try stored.live(meeting: expectedVersion)
        return replace(annotation, with: try change(annotation.content), at: at)
    }

    /// `PUT` by external id: replaces `existing` (the live annotation with `externalId`) when its
    /// version meets `expectedVersion`, else creates under `newID()`; any condition but `.none`
    /// needs an existing annotation, as RFC 9110's If-Match does.
    public static func upsert(
        externalId: String, _ content: AnnotationContent, existing: Annotation?, expectedVersion: VersionCondition, at: Date,
        newID: () -> AnnotationID
    ) throws -> AnnotationWrite {
        if let existing {
            try StoredAnnotation.check(expectedVersion, against: existing)
            return replace(existing, with: content, at: at)
        }
        if expectedVersion != .none { throw AnnotationStoreError.externalIdNotFound(externalId) }
        return create(content, id: newID(), at: at)
    }

    /// `DELETE` by id: the stored annotation, when its version meets `expectedVersion`, becomes a
    /// tombstone one version later, deleted `at`; its id stays gone forever.
    public static func delete(_ stored: StoredAnnotation, expectedVersion: VersionCondition, at: Date) throws -> AnnotationWrite {
        AnnotationWrite(.delete(try stored.live(meeting: expectedVersion), at: at))
    }

    /// A create with an `Idempotency-Key`: the first answer again when the key was stored (within
    /// its lifetime) for the same fingerprint; nil for a new key; a key stored for other content
    /// (or whose stored id does not read back) is refused.
    /// - Parameter stored: the key's stored fingerprint, annotation id (nil when unreadable) and time.
    public static func replay(
        _ key: IdempotencyKey, stored: (fingerprint: String, id: AnnotationID?, createdAt: Date)?, content: AnnotationContent
    ) throws -> Annotation? {
        guard let stored else { return nil }
        guard stored.fingerprint == key.fingerprint, let id = stored.id else { throw AnnotationStoreError.idempotencyKeyReused(key.key) }
        return Annotation(id: id, content: content, version: 1, createdAt: stored.createdAt, updatedAt: stored.createdAt)
    }
}

extension IdempotencyKey {
    /// Keys stored before this time, for a write `at`, are forgotten (deleted before the lookup).
    public static func oldestKept(at: Date) -> Date {
        at.addingTimeInterval(-lifetime)
    }
}
