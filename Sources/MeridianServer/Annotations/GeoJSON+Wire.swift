import MeridianHTTP
import Annotations
import Foundation
import MapGeometry
import Timeline
import WireJSON
import MeridianAPI
import OpenAPIRuntime

// An annotation as the contract's GeoJSON (RFC 7946) Point feature (imports are read by Annotations' GeoJSONImport).

extension Components.Schemas.Feature {
    /// The feature of an annotation: `id` is its id, `properties` its fields and server fields.
    init(_ annotation: Annotation) {
        let content = annotation.content
        let server: [String: JSONValue] = [
            "version": .number(Double(annotation.version)),
            "createdAt": .string(Instant(millisecondOf: annotation.createdAt).rfc3339),
            "updatedAt": .string(Instant(millisecondOf: annotation.updatedAt).rfc3339),
        ]
        self.init(
            _type: .feature,
            id: OpenAPIValueContainer(stringLiteral: annotation.id.description),
            geometry: .init(_type: .point, coordinates: [content.coordinate.longitude, content.coordinate.latitude]),
            properties: .init(
                externalId: content.externalId, title: content.title, subtitle: content.subtitle, kind: content.kind,
                clusteringIdentifier: content.clusteringIdentifier, displayPriority: content.displayPriority,
                properties: OpenAPIObjectContainer(content.properties), additionalProperties: server.compactMapValues { try? OpenAPIValueContainer(unvalidatedValue: $0.runtimeValue) }
            )
        )
    }
}
