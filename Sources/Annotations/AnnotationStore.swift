public import Foundation

/// One entry of the change feed clients use to keep a cache keyed by (id, version).
public struct AnnotationChange: Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Sendable { case created, updated, deleted }
    /// Gap-free, increasing position in the feed, from 1.
    public var sequence: Int64
    public var kind: Kind
    public var id: AnnotationID
    /// The version the annotation has after the change (for `deleted`, the tombstone's).
    public var version: Int
    public var at: Date

    public init(sequence: Int64, kind: Kind, id: AnnotationID, version: Int, at: Date) {
        self.sequence = sequence
        self.kind = kind
        self.id = id
        self.version = version
        self.at = at
    }
}

/// Why a store refused a request; HTTP-free (the server maps it to 404, 410, 412, 409).
public enum AnnotationStoreError: Error, Hashable, Sendable {
    /// No annotation ever had this id.
    case notFound(AnnotationID)
    /// The annotation was deleted; its id stays gone forever.
    case gone(AnnotationID, deletedAt: Date)
    /// `If-Match` named another version; nothing changed.
    case versionMismatch(AnnotationID, current: Int)
    /// Another live annotation already has this external id.
    case externalIdTaken(String)
}

/// What the annotation endpoints need from storage. Every method is one transaction: it either
/// commits completely before it returns or changes nothing.
public protocol AnnotationStore: Sendable {
    /// Stores new content under a fresh id, version 1, and records `created`.
    func create(_ content: AnnotationContent) async throws -> Annotation
    /// The current annotation; throws ``AnnotationStoreError/notFound(_:)`` or ``AnnotationStoreError/gone(_:deletedAt:)``.
    func annotation(_ id: AnnotationID) async throws -> Annotation
    /// Replaces the content with `change(current)` when `expectedVersion` is nil or current;
    /// bumps the version and records `updated`. An unchanged result is not a write.
    func update(
        _ id: AnnotationID, expectedVersion: Int?, _ change: @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation
    /// Deletes the annotation, leaving a tombstone, and records `deleted`.
    func delete(_ id: AnnotationID, expectedVersion: Int?) async throws
    /// Up to `limit` feed entries with a sequence greater than `sequence`, in order.
    func changes(after sequence: Int64, limit: Int) async throws -> [AnnotationChange]
}
