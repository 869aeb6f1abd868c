public import Foundation
public import MapGeometry
public import Timeline

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

/// Why a store refused a request; HTTP-free (the server maps it to 404, 410, 412, 409, 422).
public enum AnnotationStoreError: Error, Hashable, Sendable {
    /// No annotation ever had this id.
    case notFound(AnnotationID)
    /// The annotation was deleted; its id stays gone forever.
    case gone(AnnotationID, deletedAt: Date)
    /// `If-Match` named other versions; nothing changed.
    case versionMismatch(AnnotationID, current: Int)
    /// `If-Match` was given for an upsert, but no live annotation has this external id.
    case externalIdNotFound(String)
    /// Another live annotation already has this external id.
    case externalIdTaken(String)
    /// The idempotency key was used within its lifetime for a request with other content.
    case idempotencyKeyReused(String)
    /// The idempotency key's first request is still being processed.
    case idempotencyKeyInFlight(String)
}

/// A client's `Idempotency-Key` with what identifies its request: the same key and fingerprint
/// replay the first answer; the same key with another fingerprint is refused.
public struct IdempotencyKey: Hashable, Sendable {
    /// How long a key is remembered.
    public static let lifetime: TimeInterval = 24 * 60 * 60
    /// Most characters of a key.
    public static let maxLength = 255

    public var key: String
    /// The request's canonical content (``AnnotationContent/fingerprint``).
    public var fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// What a write did.
public enum WriteStatus: String, Hashable, Sendable {
    case created, updated, unchanged
}

/// Which annotations a list or an export wants, in id (creation) order.
public struct AnnotationQuery: Hashable, Sendable {
    /// Only annotations inside this box (it may cross the antimeridian).
    public var bbox: BoundingBox?
    /// Only annotations of this kind.
    public var kind: String?
    /// Only annotations with a greater id: the cursor of the previous page.
    public var after: AnnotationID?
    /// At most this many; nil for all.
    public var limit: Int?
    /// Only annotations this CQL2 filter matches.
    public var filter: Filter?

    /// Rows a store reads at a time while a filter fills a page.
    public static let filterChunk = 1_000

    public init(bbox: BoundingBox? = nil, kind: String? = nil, after: AnnotationID? = nil, limit: Int? = nil, filter: Filter? = nil) {
        self.bbox = bbox
        self.kind = kind
        self.after = after
        self.limit = limit
        self.filter = filter
    }
}

/// One page of a query; `next` is the cursor of the next page, nil on the last.
public struct AnnotationPage: Hashable, Sendable {
    public var annotations: [Annotation]
    public var next: AnnotationID?

    public init(annotations: [Annotation], next: AnnotationID?) {
        self.annotations = annotations
        self.next = next
    }
}

/// What the annotation endpoints need from storage. Every write is one transaction: it either
/// commits completely before it returns or changes nothing.
public protocol AnnotationStore: Sendable {
    /// Stores new content under a fresh id, version 1, and records `created`. With a key seen
    /// before (within ``IdempotencyKey/lifetime``) and the same fingerprint, returns the first
    /// answer again (`replayed`) and writes nothing; the key is stored in the same transaction.
    func create(_ content: AnnotationContent, idempotencyKey: IdempotencyKey?) async throws -> (annotation: Annotation, replayed: Bool)
    /// The current annotation; throws ``AnnotationStoreError/notFound(_:)`` or ``AnnotationStoreError/gone(_:deletedAt:)``.
    func annotation(_ id: AnnotationID) async throws -> Annotation
    /// Replaces the content with `change(current)` when the current version meets `expectedVersion`;
    /// bumps the version and records `updated`. An unchanged result is not a write.
    func update(
        _ id: AnnotationID, expectedVersion: VersionCondition, _ change: @escaping @Sendable (AnnotationContent) throws -> AnnotationContent
    ) async throws -> Annotation
    /// Creates the live annotation with this external id, or replaces its content (`content.externalId`
    /// must be `externalId`). Any condition but `.none` needs a live annotation (else
    /// ``AnnotationStoreError/externalIdNotFound(_:)``), as RFC 9110's If-Match does.
    func upsert(externalId: String, _ content: AnnotationContent, expectedVersion: VersionCondition) async throws -> (annotation: Annotation, status: WriteStatus)
    /// Deletes the annotation, leaving a tombstone, and records `deleted`.
    func delete(_ id: AnnotationID, expectedVersion: VersionCondition) async throws
    /// Live annotations matching `query`, in id order.
    func annotations(matching query: AnnotationQuery) async throws -> AnnotationPage
    /// Imports features in one transaction, each writing the live annotation ``ImportMatch`` finds
    /// (named by id, else by external id) or creating one; the features arrive in chunks while the
    /// transaction runs: `nextChunk` returns the next chunk (it may block until one is ready), nil
    /// after the last, or throws to abandon the import, which then changes nothing.
    func importFeatures(
        chunks nextChunk: @escaping @Sendable () throws -> [ImportedFeature]?
    ) async throws -> [(id: AnnotationID, status: WriteStatus)]
    /// Up to `limit` feed entries with a sequence greater than `sequence`, in order.
    func changes(after sequence: Int64, limit: Int) async throws -> [AnnotationChange]
    /// Returns once the feed has an entry after `sequence`, or after `timeout`, whichever is first.
    func waitForChanges(after sequence: Int64, timeout: Duration) async

    /// The live annotations among `ids`, by id (deleted ones are absent).
    func annotations(ids: [AnnotationID]) async throws -> [AnnotationID: Annotation]
}

extension AnnotationStore {
    /// Imports every feature in one transaction (``importFeatures(chunks:)``); the results are in input order.
    public func importFeatures(_ features: [ImportedFeature]) async throws -> [(id: AnnotationID, status: WriteStatus)] {
        try await importFeatures(chunks: ImportChunks(features).next)
    }

    /// Imports contents that name no annotation by id: by external id when one has it, else a create.
    public func importContents(_ contents: [AnnotationContent]) async throws -> [(id: AnnotationID, status: WriteStatus)] {
        try await importFeatures(contents.map { ImportedFeature(content: $0) })
    }

    /// Creates without an idempotency key.
    public func create(_ content: AnnotationContent) async throws -> Annotation {
        try await create(content, idempotencyKey: nil).annotation
    }
}

/// What a conditional write (`If-Match`) demands of the current version.
public enum VersionCondition: Hashable, Sendable, ExpressibleByNilLiteral, ExpressibleByIntegerLiteral {
    /// No condition (no `If-Match`): a write may also create.
    case none
    /// `If-Match: *`: the annotation must exist, at any version.
    case exists
    /// `If-Match: "3", "4"`: the current version must be one of these (none matches an empty set).
    case oneOf(Set<Int>)

    public init(nilLiteral: ()) { self = .none }
    public init(integerLiteral version: Int) { self = .oneOf([version]) }

    /// Whether an existing annotation at `version` meets the condition.
    public func admits(_ version: Int) -> Bool {
        if case .oneOf(let versions) = self { return versions.contains(version) }
        return true
    }
}
