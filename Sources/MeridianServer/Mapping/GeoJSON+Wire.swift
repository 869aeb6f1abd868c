import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import OpenAPIRuntime

// GeoJSON (RFC 7946) Point features ↔ annotations. A feature's `properties` hold the annotation's
// fields and the free `properties` object; other members join the free properties.

extension AnnotationContent {
    /// Fields of a feature's `properties` that are annotation fields, not free properties.
    static let featureFields: Set<String> = ["externalId", "title", "subtitle", "kind", "clusteringIdentifier", "displayPriority", "properties"]

    /// Content from one feature, validated; the error's path is inside the feature.
    init(feature: Components.Schemas.Feature) throws(GeometryError) {
        guard feature._type == "Feature" else { throw GeometryError(path: ["type"], message: "must be \"Feature\", got \"\(feature._type)\"") }
        let coordinate = try Self.point(feature.geometry)
        let members = JSONValue.members(of: feature.properties)
        var free: [String: JSONValue] = [:]
        for (key, value) in members where !Self.featureFields.contains(key) && !Self.serverFields.contains(key) {
            free[key] = value
        }
        switch members["properties"] {
        case nil, .null?: break
        case .object(let nested)?: free.merge(nested) { _, nested in nested }
        default: throw GeometryError(path: ["properties", "properties"], message: "must be an object")
        }
        var patch = members.filter { Self.featureFields.contains($0.key) }
        patch["properties"] = nil
        var content = AnnotationContent(coordinate: coordinate, properties: free)
        do { content = try content.merging(patch) } catch { throw error.nested(under: "properties") }
        self = content
    }

    private static func point(_ geometry: Components.Schemas.Geometry?) throws(GeometryError) -> MapGeometry.Coordinate {
        guard let geometry else { throw GeometryError(path: ["geometry"], message: "is required: a Point [longitude, latitude]") }
        guard geometry._type == "Point" else {
            throw GeometryError(path: ["geometry", "type"], message: "must be \"Point\", got \"\(geometry._type)\"")
        }
        guard case .array(let position) = JSONValue(runtimeValue: geometry.coordinates?.value), (2...3).contains(position.count),
              case .number(let longitude) = position[0], case .number(let latitude) = position[1]
        else {
            throw GeometryError(path: ["geometry", "coordinates"], message: "must be [longitude, latitude] (numbers)")
        }
        do { return try .init(validatingLatitude: latitude, longitude: longitude) } catch {
            // Position order is longitude first: point at the index, not the field name.
            throw GeometryError(path: ["geometry", "coordinates", error.path == ["longitude"] ? "0" : "1"], message: error.message)
        }
    }
}

extension Components.Schemas.Feature {
    /// RFC 3339 with fractional seconds, as every time of the API.
    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The feature of an annotation: `id` is its id, `properties` its fields and server fields.
    init(_ annotation: Annotation) {
        let content = annotation.content
        var members = content.jsonObject
        members["coordinate"] = nil
        members["version"] = .number(Double(annotation.version))
        members["createdAt"] = .string(Self.timeFormat.format(annotation.createdAt))
        members["updatedAt"] = .string(Self.timeFormat.format(annotation.updatedAt))
        self.init(
            _type: "Feature",
            id: OpenAPIValueContainer(stringLiteral: annotation.id.description),
            geometry: .init(_type: "Point", coordinates: try? OpenAPIValueContainer(unvalidatedValue: [content.coordinate.longitude, content.coordinate.latitude])),
            properties: OpenAPIObjectContainer(members)
        )
    }
}
