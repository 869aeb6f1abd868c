import Annotations
import Foundation
import MapGeometry
import MeridianAPI
import OpenAPIRuntime

// GeoJSON (RFC 7946) Point features ↔ annotations. A feature's `properties` hold the annotation's
// fields and the free `properties` object; other members join the free properties.

/// The parts of a GeoJSON Feature an import reads, from the generated types or straight from
/// parsed JSON (the fast path); both give the same annotation content and the same errors.
struct GeoJSONFeature {
    var type: String
    /// Nil when the feature has no geometry (absent or null).
    var geometry: (type: String, coordinates: JSONValue)?
    var properties: [String: JSONValue]

    init(_ wire: Components.Schemas.Feature) {
        type = wire._type
        geometry = wire.geometry.map { ($0._type, JSONValue(runtimeValue: $0.coordinates?.value)) }
        properties = JSONValue.members(of: wire.properties)
    }

    /// A feature of parsed JSON, or nil when it is not of the shape the generated decoding
    /// accepts (then that decoding runs and reports the error).
    init?(_ value: JSONValue) {
        guard case .object(let members) = value, case .string(let type)? = members["type"] else { return nil }
        self.type = type
        switch members["geometry"] {
        case nil, .null?: geometry = nil
        case .object(let geometry)?:
            guard case .string(let geometryType)? = geometry["type"] else { return nil }
            self.geometry = (geometryType, geometry["coordinates"] ?? .null)
        default: return nil
        }
        switch members["properties"] {
        case nil, .null?: properties = [:]
        case .object(let properties)?: self.properties = properties
        default: return nil
        }
    }
}

extension AnnotationContent {
    /// Fields of a feature's `properties` that are annotation fields, not free properties.
    static let featureFields: Set<String> = ["externalId", "title", "subtitle", "kind", "clusteringIdentifier", "displayPriority", "properties"]

    /// Content from one feature, validated; the error's path is inside the feature.
    init(feature: GeoJSONFeature) throws(GeometryError) {
        guard feature.type == "Feature" else { throw GeometryError(path: ["type"], message: "must be \"Feature\", got \"\(feature.type)\"") }
        let coordinate = try Self.point(feature.geometry)
        let members = feature.properties
        var free: [String: JSONValue] = [:]
        var patch: [String: JSONValue] = [:]
        for (key, value) in members where !Self.serverFields.contains(key) {
            if Self.featureFields.contains(key) { patch[key] = value } else { free[key] = value }
        }
        switch patch.removeValue(forKey: "properties") {
        case nil, .null?: break
        case .object(let nested)?: free.merge(nested) { _, nested in nested }
        default: throw GeometryError(path: ["properties", "properties"], message: "must be an object")
        }
        do { self = try AnnotationContent(coordinate: coordinate, properties: free).merging(patch) } catch { throw error.nested(under: "properties") }
    }

    private static func point(_ geometry: (type: String, coordinates: JSONValue)?) throws(GeometryError) -> MapGeometry.Coordinate {
        guard let geometry else { throw GeometryError(path: ["geometry"], message: "is required: a Point [longitude, latitude]") }
        guard geometry.type == "Point" else {
            throw GeometryError(path: ["geometry", "type"], message: "must be \"Point\", got \"\(geometry.type)\"")
        }
        guard case .array(let position) = geometry.coordinates, (2...3).contains(position.count),
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
    /// The feature of an annotation: `id` is its id, `properties` its fields and server fields.
    init(_ annotation: Annotation) {
        let content = annotation.content
        var members = content.jsonObject
        members["coordinate"] = nil
        members["version"] = .number(Double(annotation.version))
        members["createdAt"] = .string(apiTimeText(annotation.createdAt))
        members["updatedAt"] = .string(apiTimeText(annotation.updatedAt))
        self.init(
            _type: "Feature",
            id: OpenAPIValueContainer(stringLiteral: annotation.id.description),
            geometry: .init(_type: "Point", coordinates: try? OpenAPIValueContainer(unvalidatedValue: [content.coordinate.longitude, content.coordinate.latitude])),
            properties: OpenAPIObjectContainer(members)
        )
    }
}
