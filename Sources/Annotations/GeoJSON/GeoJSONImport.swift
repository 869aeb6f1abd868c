public import Foundation
public import MapGeometry
import WireJSON

/// Importing a GeoJSON FeatureCollection of Points as annotations: the one use case behind both
/// `POST /v1/annotations/import` and `meridian import`. Every feature is checked before anything
/// is written; the store writes each in one transaction, matching as ``ImportMatch`` says.
public enum GeoJSONImport {
    /// Per feature, in input order, the annotation's id and what the write did.
    public typealias Results = [(id: AnnotationID, status: WriteStatus)]

    /// Features that cannot be imported; nothing was stored. Paths start at the body
    /// (`features/7/geometry`), one error per bad feature.
    public struct InvalidFeatures: Error, Sendable, CustomStringConvertible {
        public var errors: FieldErrors

        public var description: String {
            let heading = errors.total == 1 ? "1 feature is invalid" : "\(errors.total) features are invalid"
            return ([heading + "; nothing was imported"] + errors.errors.map { "  /\($0.path.joined(separator: "/")) \($0.message)" })
                .joined(separator: "\n")
        }
    }

    /// Ends an import the direct reader declined; its transaction rolls back.
    struct Declined: Error {}

    /// Imports a GeoJSON body into `store`. The direct reader and the transaction run at once, the
    /// transaction taking chunks while the reader parses the rest. When the reader declines,
    /// nothing was written, and the JSON tree lists every invalid feature.
    /// - Returns: the results, or nil when the body is not JSON of the FeatureCollection shape (the
    ///   caller explains that: the HTTP contract's decoding, or a plain message).
    /// - Parameter progress: told the number of features handed to the transaction so far, after each chunk.
    /// - Throws: ``InvalidFeatures``, or what the store throws.
    public static func importBody(
        _ body: Data, into store: some AnnotationStore, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> Results? {
        let chunks = ImportChunks()
        async let written = store.importFeatures(chunks: { [chunks] in
            let chunk = try chunks.next()
            if let chunk, let progress { progress(chunks.taken(chunk.count)) }
            return chunk
        })
        let accepted = body.withUnsafeBytes { bytes in AnnotationFeatureReader.read(bytes, emit: chunks.send) }
        accepted ? chunks.finish() : chunks.fail(Declined())
        do {
            return try await written
        } catch where !accepted {
            // Declined (or the transaction failed meanwhile): nothing was written; report from the tree.
            let features = body.withUnsafeBytes { bytes in JSONValueParser.parse(bytes).flatMap(GeoJSONFeature.features(of:)) }
            guard let features else { return nil }
            return try await store.importFeatures(imported(features))
        }
    }

    /// Every feature read, or every bad feature. Features that name the same annotation apply in
    /// order (the later updates what the earlier wrote).
    public static func imported(_ features: [GeoJSONFeature]) throws(InvalidFeatures) -> [ImportedFeature] {
        var errors = FieldErrors()
        var contents: [ImportedFeature] = []
        contents.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            let path = ["features", String(index)]
            guard let content = errors.value(at: path, { () throws(FieldError) in try AnnotationContent(feature: feature) }) else { continue }
            contents.append(ImportedFeature(idText: feature.id, content: content))
        }
        guard errors.isEmpty else { throw InvalidFeatures(errors: errors) }
        return contents
    }

    /// How many features each write status had.
    public struct Summary: Hashable, Sendable, CustomStringConvertible {
        public var created = 0, updated = 0, unchanged = 0

        public init(_ results: Results) {
            for result in results {
                switch result.status {
                case .created: created += 1
                case .updated: updated += 1
                case .unchanged: unchanged += 1
                }
            }
        }

        public var description: String { "\(created) created, \(updated) updated, \(unchanged) unchanged" }
    }
}
