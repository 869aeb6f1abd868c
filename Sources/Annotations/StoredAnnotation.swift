public import Foundation

/// What a store holds under one id of its tenant: a live annotation, a tombstone, or nothing
/// (another tenant's ids read as nothing, as if they never existed).
public enum StoredAnnotation: Hashable, Sendable {
    /// The live annotation.
    case live(Annotation)
    /// Deleted at this time; the id stays gone forever.
    case deleted(AnnotationID, deletedAt: Date)
    /// No annotation ever had this id.
    case absent(AnnotationID)

    /// The live annotation.
    /// - Throws: ``AnnotationStoreError/gone(_:deletedAt:)`` or ``AnnotationStoreError/notFound(_:)``.
    public func live() throws -> Annotation {
        switch self {
        case .live(let annotation): annotation
        case .deleted(let id, let deletedAt): throw AnnotationStoreError.gone(id, deletedAt: deletedAt)
        case .absent(let id): throw AnnotationStoreError.notFound(id)
        }
    }

    /// The live annotation, when its version meets `expectedVersion`.
    /// - Throws: what ``live()`` throws, or ``AnnotationStoreError/versionMismatch(_:current:)``.
    public func live(meeting expectedVersion: VersionCondition) throws -> Annotation {
        let annotation = try live()
        try Self.check(expectedVersion, against: annotation)
        return annotation
    }

    /// Throws ``AnnotationStoreError/versionMismatch(_:current:)`` unless `annotation`'s version meets `expectedVersion`.
    static func check(_ expectedVersion: VersionCondition, against annotation: Annotation) throws {
        if !expectedVersion.admits(annotation.version) {
            throw AnnotationStoreError.versionMismatch(annotation.id, current: annotation.version)
        }
    }
}
