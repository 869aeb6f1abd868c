import MapGeometry
import WireJSON

/// Reads a GeoJSON import body straight into imported features: ``GeoJSONPointReader`` for the
/// collection, and the annotation fields of each feature's `properties` read directly (no tree
/// for them), the free properties as ``JSONValue``.
///
/// It takes only the valid case: a null where a value is expected, a repeated key or an invalid
/// feature gives false, and ``GeoJSONImport`` reads the body again as a
/// tree, which lists every error. Tests compare both readers on the same input.
public enum AnnotationFeatureReader {
    /// Features per chunk: big enough to amortize the hand-over, small enough that the writer starts early.
    public static let chunkSize = 2048

    /// Reads the body, handing the features to `emit` in chunks of `chunkSize` as it goes; false
    /// when it declines (the chunks already emitted must then be discarded).
    public static func read(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = chunkSize, emit: ([ImportedFeature]) -> Void) -> Bool {
        var pending: [ImportedFeature] = []
        pending.reserveCapacity(chunkSize)
        let complete = GeoJSONPointReader.read(bytes, readProperties: Fields.read) { feature in
            let coordinate = Coordinate(latitude: feature.latitude, longitude: feature.longitude)
            let content = (feature.properties ?? Fields()).content(at: coordinate)
            guard (try? content.validate()) != nil else { return false }
            pending.append(ImportedFeature(idText: feature.id, content: content))
            if pending.count == chunkSize {
                emit(pending)
                pending.removeAll(keepingCapacity: true)
            }
            return true
        }
        guard complete else { return false }
        if !pending.isEmpty { emit(pending) }
        return true
    }

    /// What a feature's `properties` say about the annotation.
    struct Fields {
        var externalId: String?, title: String?, subtitle: String?, kind: String?, clusteringIdentifier: String?
        var displayPriority = AnnotationContent.defaultDisplayPriority
        var free: [String: JSONValue] = [:]
        var nested: [String: JSONValue] = [:]

        func content(at coordinate: Coordinate) -> AnnotationContent {
            AnnotationContent(
                externalId: externalId, coordinate: coordinate, title: title, subtitle: subtitle, kind: kind,
                clusteringIdentifier: clusteringIdentifier, displayPriority: displayPriority,
                properties: nested.isEmpty ? free : free.merging(nested) { _, nested in nested }
            )
        }

        /// The fields of a `properties` object, or nil to decline.
        static func read(_ parser: inout JSONValueParser) -> Fields? {
            var fields = Fields()
            var seen: UInt8 = 0  // annotation fields already read; a repeated one declines
            let complete = parser.members { key, parser in
                let bit: UInt8
                switch key {
                case "externalId": bit = 1
                case "title": bit = 2
                case "subtitle": bit = 4
                case "kind": bit = 8
                case "clusteringIdentifier": bit = 16
                case "displayPriority": bit = 32
                case "properties": bit = 64
                default: bit = 0
                }
                guard seen & bit == 0 else { return false }
                seen |= bit
                switch key {
                case "externalId": return text(&parser, into: &fields.externalId)
                case "title": return text(&parser, into: &fields.title)
                case "subtitle": return text(&parser, into: &fields.subtitle)
                case "kind": return text(&parser, into: &fields.kind)
                case "clusteringIdentifier": return text(&parser, into: &fields.clusteringIdentifier)
                case "displayPriority":
                    guard let number = parser.number(), let priority = AnnotationContent.integerPriority(number) else { return false }
                    fields.displayPriority = priority
                case "properties":
                    guard parser.peek() == UInt8(ascii: "{"), case .object(let nested)? = parser.value() else { return false }
                    fields.nested = nested
                case _ where AnnotationContent.serverFields.contains(key):
                    return parser.value() != nil  // as exported; ignored on import (a repeat is harmless)
                default:
                    guard let value = parser.value(), fields.free.updateValue(value, forKey: key) == nil else { return false }
                }
                return true
            }
            return complete ? fields : nil
        }

        /// A string member (null leaves the field absent).
        private static func text(_ parser: inout JSONValueParser, into field: inout String?) -> Bool {
            if parser.peek() == UInt8(ascii: "n") { return parser.value() == .null }
            field = parser.stringValue()
            return field != nil
        }
    }
}
