/// The collections every tenant has under `/ogc/collections`, in the order they are listed.
enum OGCCollections {
    static let all: [any OGCCollectionSource] = [AnnotationsCollection(), DevicesCollection(), RegionsCollection()]

    /// The collection `id` names; 404 otherwise.
    static func source(_ id: String) throws(OGCError) -> any OGCCollectionSource {
        guard let source = all.first(where: { $0.id == id }) else { throw OGCError.noCollection(id) }
        return source
    }

    /// The collection `id` names when it takes writes; 404 when there is none, 405 when it is read-only.
    static func writable(_ id: String) throws(OGCError) -> any OGCWritableSource {
        guard let source = try source(id) as? any OGCWritableSource else { throw OGCError.readOnly(id) }
        return source
    }
}
