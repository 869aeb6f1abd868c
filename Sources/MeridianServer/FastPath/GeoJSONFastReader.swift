import Annotations
import MapGeometry

/// Reads a GeoJSON FeatureCollection straight into annotation contents, without building a
/// ``JSONValue`` tree for the parts whose shape is known (feature, geometry, annotation fields).
///
/// It takes only the well-formed, valid case: any other type, a null where a value is expected,
/// a repeated key, an invalid feature or a repeated external id gives nil, and the caller reads
/// the body again through ``JSONValueParser`` and ``AnnotationImport``, which report every error.
/// Tests compare both readers on the same input.
struct GeoJSONFastReader {
    private var parser: JSONValueParser
    private let chunkSize: Int
    private let emit: ([AnnotationContent]) -> Void
    private var pending: [AnnotationContent] = []
    private var externalIds = Set<String>()

    /// The contents of every feature, or nil when the body is anything but a valid import.
    static func contents(_ bytes: UnsafeRawBufferPointer) -> [AnnotationContent]? {
        var contents: [AnnotationContent] = []
        return read(bytes) { contents += $0 } ? contents : nil
    }

    /// Reads the body, handing the contents to `emit` in chunks of `chunkSize` as it goes; false
    /// when it declines (the chunks already emitted must then be discarded).
    static func read(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 2048, emit: @escaping ([AnnotationContent]) -> Void) -> Bool {
        var reader = GeoJSONFastReader(parser: JSONValueParser(bytes: bytes), chunkSize: chunkSize, emit: emit)
        return reader.collection()
    }

    private init(parser: JSONValueParser, chunkSize: Int, emit: @escaping ([AnnotationContent]) -> Void) {
        self.parser = parser
        self.chunkSize = chunkSize
        self.emit = emit
        pending.reserveCapacity(chunkSize)
    }

    private mutating func collection() -> Bool {
        var sawType = false, sawFeatures = false
        let complete = members { key, reader in
            switch key {
            case "type":
                guard !sawType, reader.parser.stringValue() == "FeatureCollection" else { return false }
                sawType = true
            case "features":
                guard !sawFeatures, reader.features() else { return false }
                sawFeatures = true
            default:
                return reader.parser.value() != nil  // bbox, name, crs, …: read and ignored
            }
            return true
        }
        guard complete, sawType, sawFeatures, parser.atEnd() else { return false }
        if !pending.isEmpty { emit(pending) }
        return true
    }

    private mutating func features() -> Bool {
        guard parser.consume(UInt8(ascii: "[")) else { return false }
        if parser.consume(UInt8(ascii: "]")) { return true }
        repeat {
            guard let content = feature() else { return false }
            if let externalId = content.externalId, !externalIds.insert(externalId).inserted { return false }
            pending.append(content)
            if pending.count == chunkSize {
                emit(pending)
                pending.removeAll(keepingCapacity: true)
            }
        } while parser.consume(UInt8(ascii: ","))
        return parser.consume(UInt8(ascii: "]"))
    }

    /// One feature: `type` "Feature", a Point geometry, optional properties; other members ignored.
    private mutating func feature() -> AnnotationContent? {
        var type: String?, coordinate: Coordinate?, fields: Fields?
        let complete = members { key, reader in
            switch key {
            case "type":
                guard type == nil else { return false }
                type = reader.parser.stringValue()
                return type == "Feature"
            case "geometry":
                guard coordinate == nil else { return false }
                coordinate = reader.point()
                return coordinate != nil
            case "properties":
                guard fields == nil else { return false }
                if reader.parser.peek() == UInt8(ascii: "n") { fields = Fields(); return reader.parser.value() == .null }
                fields = reader.properties()
                return fields != nil
            default:
                return reader.parser.value() != nil  // id, bbox, foreign members
            }
        }
        guard complete, type != nil, let coordinate else { return nil }
        let content = (fields ?? Fields()).content(at: coordinate)
        guard (try? content.validate()) != nil else { return nil }
        return content
    }

    /// `{"type":"Point","coordinates":[lon,lat(,alt)]}`.
    private mutating func point() -> Coordinate? {
        var isPoint = false
        var position: [Double]?
        let complete = members { key, reader in
            switch key {
            case "type":
                guard !isPoint, reader.parser.stringValue() == "Point" else { return false }
                isPoint = true
            case "coordinates":
                guard position == nil, reader.parser.consume(UInt8(ascii: "[")) else { return false }
                var numbers: [Double] = []
                repeat {
                    guard let number = reader.parser.number() else { return false }
                    numbers.append(number)
                } while reader.parser.consume(UInt8(ascii: ","))
                guard reader.parser.consume(UInt8(ascii: "]")), (2...3).contains(numbers.count) else { return false }
                position = numbers
            default:
                return reader.parser.value() != nil
            }
            return true
        }
        guard complete, isPoint, let position else { return nil }
        return Coordinate(latitude: position[1], longitude: position[0])
    }

    /// What a feature's `properties` say about the annotation.
    private struct Fields {
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
    }

    private mutating func properties() -> Fields? {
        var fields = Fields()
        var seen: UInt8 = 0  // annotation fields already read; a repeated one declines
        let complete = members { key, reader in
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
            case "externalId": return reader.text(into: &fields.externalId)
            case "title": return reader.text(into: &fields.title)
            case "subtitle": return reader.text(into: &fields.subtitle)
            case "kind": return reader.text(into: &fields.kind)
            case "clusteringIdentifier": return reader.text(into: &fields.clusteringIdentifier)
            case "displayPriority":
                guard let number = reader.parser.number(), number == number.rounded(), abs(number) < 1e9 else { return false }
                fields.displayPriority = Int(number)
            case "properties":
                guard reader.parser.peek() == UInt8(ascii: "{"), case .object(let nested)? = reader.parser.value() else { return false }
                fields.nested = nested
            case _ where AnnotationContent.serverFields.contains(key):
                return reader.parser.value() != nil  // as exported; ignored on import (a repeat is harmless)
            default:
                guard let value = reader.parser.value(), fields.free.updateValue(value, forKey: key) == nil else { return false }
            }
            return true
        }
        return complete ? fields : nil
    }

    /// A string member (null leaves the field absent).
    private mutating func text(into field: inout String?) -> Bool {
        if parser.peek() == UInt8(ascii: "n") { return parser.value() == .null }
        field = parser.stringValue()
        return field != nil
    }

    /// Walks an object's members, calling `member` with each key while the reader stands on its
    /// value; false when the object is malformed or `member` says so.
    private mutating func members(_ member: (String, inout GeoJSONFastReader) -> Bool) -> Bool {
        guard parser.consume(UInt8(ascii: "{")) else { return false }
        if parser.consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = parser.stringValue(), parser.consume(UInt8(ascii: ":")) else { return false }
            parser.skipWhitespace()
            guard member(key, &self) else { return false }
        } while parser.consume(UInt8(ascii: ","))
        return parser.consume(UInt8(ascii: "}"))
    }
}
