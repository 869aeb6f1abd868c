import Annotations
import Foundation
import MapGeometry
import Timeline
import WireJSON
import MeridianAPI
import OpenAPIRuntime

// GeoJSON (RFC 7946) Point features ↔ the contract's Feature (the import rules are Annotations' GeoJSONImport).

extension GeoJSONFeature {
    /// The feature as the contract's generated decoding read it.
    init(_ wire: Components.Schemas.Feature) {
        self.init(
            type: wire._type,
            geometry: wire.geometry.map { ($0._type, JSONValue(runtimeValue: $0.coordinates?.value)) },
            properties: JSONValue.members(of: wire.properties))
    }
}

extension Components.Schemas.Feature {
    /// The feature of an annotation: `id` is its id, `properties` its fields and server fields.
    init(_ annotation: Annotation) {
        let content = annotation.content
        var members = content.jsonObject
        members["coordinate"] = nil
        members["version"] = .number(Double(annotation.version))
        members["createdAt"] = .string(Instant(millisecondOf: annotation.createdAt).rfc3339)
        members["updatedAt"] = .string(Instant(millisecondOf: annotation.updatedAt).rfc3339)
        self.init(
            _type: "Feature",
            id: OpenAPIValueContainer(stringLiteral: annotation.id.description),
            geometry: .init(_type: "Point", coordinates: try? OpenAPIValueContainer(unvalidatedValue: [content.coordinate.longitude, content.coordinate.latitude])),
            properties: OpenAPIObjectContainer(members)
        )
    }
}
