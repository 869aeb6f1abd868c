import MeridianHTTP
import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import AnnotationIndex
import Timeline
import WireJSON

// An annotation on the wire, both ways and both encodings: the generated type's mapping (request
// bodies in, answers of the generated handlers out) and the direct writer of the fast routes,
// which must write the same bytes (WirePropertyTests).

extension AnnotationContent {
    /// Content from a POST or PUT body, validated.
    init(_ wire: Components.Schemas.AnnotationInput) throws(FieldError) {
        let coordinate: MapGeometry.Coordinate
        do { coordinate = try .init(wire.coordinate) } catch { throw error.nested(under: "coordinate") }
        self.init(
            externalId: wire.externalId, coordinate: coordinate, title: wire.title, subtitle: wire.subtitle,
            kind: wire.kind, clusteringIdentifier: wire.clusteringIdentifier,
            displayPriority: wire.displayPriority ?? Self.defaultDisplayPriority,
            properties: JSONValue.members(of: wire.properties, at: ["properties"])
        )
        try validate()
    }

    /// The content a PUT by external id names: the body, with the path's external id.
    init(_ wire: Components.Schemas.AnnotationReplacement, externalId: String) throws(FieldError) {
        try self.init(Components.Schemas.AnnotationInput(
            externalId: externalId, coordinate: wire.coordinate, title: wire.title, subtitle: wire.subtitle, kind: wire.kind,
            clusteringIdentifier: wire.clusteringIdentifier, displayPriority: wire.displayPriority, properties: wire.properties
        ))
    }
}

extension Components.Schemas.Annotation {
    /// The annotation as the generated handlers answer it (``AnnotationJSON`` writes the same bytes).
    init(_ annotation: Annotation) {
        let content = annotation.content
        self.init(
            id: annotation.id.description, externalId: content.externalId, coordinate: .init(content.coordinate),
            title: content.title, subtitle: content.subtitle, kind: content.kind,
            clusteringIdentifier: content.clusteringIdentifier, displayPriority: content.displayPriority,
            properties: OpenAPIObjectContainer(content.properties), version: annotation.version,
            createdAt: annotation.createdAt, updatedAt: annotation.updatedAt
        )
    }
}

extension Annotation {
    /// `"<version>"`, the strong entity tag of this version.
    var eTag: String { "\"\(version)\"" }
    /// Where the annotation lives.
    var location: String { "/v1/annotations/\(id)" }
}

/// Annotations as the generated encoder writes them (sorted keys, compact, absent optionals left
/// out), written directly: alone, in thin answers, in pages and in nearest answers.
enum AnnotationJSON {
    static func write(_ annotation: Annotation, to json: inout JSONWriter) {
        let content = annotation.content
        json.raw("{")
        if let identifier = content.clusteringIdentifier { json.raw("\"clusteringIdentifier\":"); json.string(identifier); json.raw(",") }
        json.raw("\"coordinate\":"); ThinAnswerWriter.write(content.coordinate, to: &json)
        json.raw(",\"createdAt\":"); json.string(Instant(millisecondOf: annotation.createdAt).rfc3339)
        json.raw(",\"displayPriority\":"); json.int(content.displayPriority)
        if let externalId = content.externalId { json.raw(",\"externalId\":"); json.string(externalId) }
        json.raw(",\"id\":"); json.string(annotation.id.description)
        if let kind = content.kind { json.raw(",\"kind\":"); json.string(kind) }
        json.raw(",\"properties\":"); json.value(.object(content.properties))
        if let subtitle = content.subtitle { json.raw(",\"subtitle\":"); json.string(subtitle) }
        if let title = content.title { json.raw(",\"title\":"); json.string(title) }
        json.raw(",\"updatedAt\":"); json.string(Instant(millisecondOf: annotation.updatedAt).rfc3339)
        json.raw(",\"version\":"); json.int(annotation.version)
        json.raw("}")
    }

    /// `{"annotations":[…],"nextCursor":…}`: a page of a list or search, each annotation's JSON written already.
    static func page(_ annotations: [EncodedAnnotations.Piece], next: AnnotationID?) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + annotations.reduce(0) { $0 + $1.count + 1 })
        json.raw("{\"annotations\":[")
        for (index, annotation) in annotations.enumerated() {
            if index > 0 { json.raw(",") }
            annotation.append(to: &json)
        }
        json.raw("]")
        if let next { json.raw(",\"nextCursor\":"); json.string(next.description) }
        json.raw("}")
        return json.bytes
    }

    /// `{"results":[{"annotation":…,"distance":…},…]}`: a nearest answer, each annotation's JSON written already.
    static func nearest(_ results: [(json: EncodedAnnotations.Piece, distance: Double)]) -> [UInt8] {
        var json = JSONWriter(capacity: 32 + results.reduce(0) { $0 + $1.json.count + 40 })
        json.raw("{\"results\":[")
        for (index, result) in results.enumerated() {
            json.raw(index == 0 ? "{\"annotation\":" : ",{\"annotation\":")
            result.json.append(to: &json)
            json.raw(",\"distance\":"); json.number(result.distance)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }
}
