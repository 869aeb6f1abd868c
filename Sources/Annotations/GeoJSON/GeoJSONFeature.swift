public import MapGeometry
public import WireJSON

// GeoJSON (RFC 7946) Point features → annotation content. A feature's `properties` hold the
// annotation's fields and the free `properties` object; other members join the free properties.

/// The parts of a GeoJSON Feature an import reads, from parsed JSON or from the contract's
/// generated types; both give the same annotation content and the same errors.
public struct GeoJSONFeature: Sendable {
    public var type: String
    /// Nil when the feature has no geometry (absent or null).
    public var geometry: (type: String, coordinates: JSONValue)?
    public var properties: [String: JSONValue]
    /// The feature's `id` when it is a string (as an export writes it); a number id is ignored.
    public var id: String?

    public init(type: String, geometry: (type: String, coordinates: JSONValue)?, properties: [String: JSONValue], id: String? = nil) {
        self.type = type
        self.geometry = geometry
        self.properties = properties
        self.id = id
    }

    /// A feature of parsed JSON, or nil when it is not of the shape the contract's decoding
    /// accepts (a string `type`, an object or null `geometry` with a string `type`, an object or
    /// null `properties`); that decoding then explains the error.
    public init?(_ value: JSONValue) {
        guard case .object(let members) = value, case .string(let type)? = members["type"] else { return nil }
        self.type = type
        if case .string(let id)? = members["id"] { self.id = id }
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

    /// The features of a parsed FeatureCollection, or nil when it is not of that shape.
    public static func features(of value: JSONValue) -> [GeoJSONFeature]? {
        guard case .object(let members) = value, members["type"] == .string("FeatureCollection"),
              case .array(let elements)? = members["features"] else { return nil }
        var features: [GeoJSONFeature] = []
        features.reserveCapacity(elements.count)
        for element in elements {
            guard let feature = GeoJSONFeature(element) else { return nil }
            features.append(feature)
        }
        return features
    }
}

extension AnnotationContent {
    /// Fields of a feature's `properties` that are annotation fields, not free properties.
    static let featureFields: Set<String> = ["externalId", "title", "subtitle", "kind", "clusteringIdentifier", "displayPriority", "properties"]

    /// Content from one feature, validated; the error's path is inside the feature.
    public init(feature: GeoJSONFeature) throws(FieldError) {
        guard feature.type == "Feature" else { throw FieldError(path: ["type"], message: "must be \"Feature\", got \"\(feature.type)\"") }
        let coordinate = try Self.point(feature.geometry)
        var free: [String: JSONValue] = [:]
        var patch: [String: JSONValue] = [:]
        for (key, value) in feature.properties where !Self.serverFields.contains(key) {
            if Self.featureFields.contains(key) { patch[key] = value } else { free[key] = value }
        }
        switch patch.removeValue(forKey: "properties") {
        case nil, .null?: break
        case .object(let nested)?: free.merge(nested) { _, nested in nested }
        default: throw FieldError(path: ["properties", "properties"], message: "must be an object")
        }
        do { self = try AnnotationContent(coordinate: coordinate, properties: free).merging(patch) } catch { throw error.nested(under: "properties") }
    }

    private static func point(_ geometry: (type: String, coordinates: JSONValue)?) throws(FieldError) -> Coordinate {
        guard let geometry else { throw FieldError(path: ["geometry"], message: "is required: a Point [longitude, latitude]") }
        guard geometry.type == "Point" else {
            throw FieldError(path: ["geometry", "type"], message: "must be \"Point\", got \"\(geometry.type)\"")
        }
        guard case .array(let position) = geometry.coordinates, (2...3).contains(position.count),
              case .number(let longitude) = position[0], case .number(let latitude) = position[1],
              position.count == 2 || { if case .number = position[2] { true } else { false } }()
        else {
            throw FieldError(path: ["geometry", "coordinates"], message: "must be [longitude, latitude] (numbers)")
        }
        do { return try .init(validatingLatitude: latitude.double, longitude: longitude.double) } catch {
            // Position order is longitude first: point at the index, not the field name.
            throw FieldError(path: ["geometry", "coordinates", error.path == ["longitude"] ? "0" : "1"], message: error.message)
        }
    }
}
