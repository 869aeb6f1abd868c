public import Timeline

/// One feature of an import: the annotation its GeoJSON `id` names (an id this server issued, as
/// an export writes it; nil when it has none or another kind) and the content it carries.
public struct ImportedFeature: Hashable, Sendable {
    public var id: AnnotationID?
    public var content: AnnotationContent

    public init(id: AnnotationID? = nil, content: AnnotationContent) {
        self.id = id
        self.content = content
    }

    /// A feature whose GeoJSON `id` is `text` (a string that is not an annotation id names none).
    public init(idText text: String?, content: AnnotationContent) {
        self.init(id: text.flatMap { AnnotationID($0) }, content: content)
    }
}

/// Which live annotation an imported feature writes, the one rule both engines follow: the one
/// its `id` names; else the one holding its external id; else none, and the feature creates an
/// annotation under a fresh id (an id that names nothing, or a deleted annotation, is not
/// revived). Features apply in order: a later feature naming what an earlier one wrote updates
/// that. So an export imports back unchanged, with or without external ids.
///
/// A store reads the live rows a chunk names (``names(in:)``), asks ``existing(for:)`` per
/// feature, plans with ``AnnotationWrite`` and tells ``wrote(_:replacing:)`` what it wrote.
/// `Row` is the store's row (a decoded annotation, or a record it decodes only when it changes).
public struct ImportMatch<Row> {
    private var byID: [AnnotationID: Row] = [:]
    private var byExternalId: [String: Row] = [:]
    private let identity: (Row) -> (id: AnnotationID, externalId: String?)

    /// The matches among `rows`, the live rows of the tenant that ``names(in:)`` gave.
    public init(_ rows: some Sequence<Row>, identity: @escaping (Row) -> (id: AnnotationID, externalId: String?)) {
        self.identity = identity
        for row in rows { add(row) }
    }

    /// The ids and external ids a chunk names: the live rows holding any of them are the ones it may write.
    public static func names(in chunk: [ImportedFeature]) -> (ids: [AnnotationID], externalIds: [String]) {
        (chunk.compactMap(\.id), chunk.compactMap(\.content.externalId))
    }

    /// The live row `feature` writes, or nil for a create.
    public func existing(for feature: ImportedFeature) -> Row? {
        if let id = feature.id, let row = byID[id] { return row }
        return feature.content.externalId.flatMap { byExternalId[$0] }
    }

    /// Records that `row` was written (created, or replacing `old`), for the features after it.
    public mutating func wrote(_ row: Row, replacing old: Row?) {
        if let old, let externalId = identity(old).externalId, let holder = byExternalId[externalId], identity(holder).id == identity(old).id {
            byExternalId[externalId] = nil
        }
        add(row)
    }

    private mutating func add(_ row: Row) {
        let (id, externalId) = identity(row)
        byID[id] = row
        if let externalId { byExternalId[externalId] = row }
    }
}
