public import Foundation
public import MapGeometry
import Timeline
public import WireJSON

/// An annotation as a GeoJSON feature with *flat* properties, as GIS tools read columns (OGC API –
/// Features): the annotation's fields and its free properties side by side. The one mapping both
/// ways, for the features `/ogc` answers and for the features it is sent (Part 4).
///
/// A free property keeps its name, unless that name is one of ``reservedNames`` (a field, a
/// server field, `id`, `properties`) or starts with ``freePrefix``: then it is
/// `properties.<name>` (a free `title` is `properties.title`), so no free property hides a field
/// and every flat name reads back to one member. CQL2 filters name free properties the same way.
public enum FlatProperties {
    /// The annotation's own members in the flat form, in the order features list them.
    public static let fields = [
        "kind", "title", "subtitle", "externalId", "clusteringIdentifier", "displayPriority", "version", "createdAt", "updatedAt",
    ]
    /// Names a free property cannot have in the flat form as they are.
    public static let reservedNames: Set<String> = Set(fields).union(["id", "properties"])
    /// What a free property whose name is reserved is exposed under.
    public static let freePrefix = "properties."

    /// The flat name of the free property `name`.
    public static func flatName(ofFree name: String) -> String {
        reservedNames.contains(name) || name.hasPrefix(freePrefix) ? freePrefix + name : name
    }

    /// The free property a flat name names, or nil when it names a field.
    public static func freeName(ofFlat name: String) -> String? {
        if name.hasPrefix(freePrefix) { return String(name.dropFirst(freePrefix.count)) }
        return reservedNames.contains(name) ? nil : name
    }

    /// The flat `properties` of `annotation` (absent fields are left out; times RFC 3339 at the millisecond).
    public static func properties(of annotation: Annotation) -> [String: JSONValue] {
        var flat = properties(of: annotation.content)
        flat["version"] = .number(Double(annotation.version))
        flat["createdAt"] = .string(Instant(millisecondOf: annotation.createdAt).rfc3339)
        flat["updatedAt"] = .string(Instant(millisecondOf: annotation.updatedAt).rfc3339)
        return flat
    }

    /// The flat `properties` of client content: its fields and free properties.
    public static func properties(of content: AnnotationContent) -> [String: JSONValue] {
        var flat: [String: JSONValue] = [:]
        for (name, value) in content.properties { flat[flatName(ofFree: name)] = value }
        for (field, value) in [("kind", content.kind), ("title", content.title), ("subtitle", content.subtitle),
                               ("externalId", content.externalId), ("clusteringIdentifier", content.clusteringIdentifier)] {
            if let value { flat[field] = .string(value) }
        }
        flat["displayPriority"] = .number(Double(content.displayPriority))
        return flat
    }

    /// The GeoJSON Feature of client content (no `id`): a Point and the flat properties.
    public static func feature(of content: AnnotationContent) -> [String: JSONValue] {
        [
            "type": .string("Feature"),
            "geometry": point(content.coordinate),
            "properties": .object(properties(of: content)),
        ]
    }

    /// A GeoJSON Point `[longitude, latitude]`.
    public static func point(_ coordinate: Coordinate) -> JSONValue {
        .object(["type": .string("Point"), "coordinates": .array([.number(coordinate.longitude), .number(coordinate.latitude)])])
    }

    /// A feature's flat `properties` in the form an import reads (``AnnotationContent/init(feature:)``):
    /// `properties.<name>` members become members of the nested `properties` object (which also
    /// takes a `properties` object sent as an import writes it), and a null free property is none
    /// (a GIS tool sends every column, null where a feature has no value).
    public static func importable(_ flat: [String: JSONValue]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        var nested: [String: JSONValue] = [:]
        var sentNested: [String: JSONValue] = [:]
        for (name, value) in flat {
            if name == "properties", case .object(let members) = value {
                sentNested = members
            } else if name == "properties" {
                result[name] = value  // not an object: the import's reading refuses it
            } else if let free = freeName(ofFlat: name) {
                if value != .null { nested[free] = value }
            } else {
                result[name] = value
            }
        }
        // Flat free names first; the nested object wins, as on import.
        nested.merge(sentNested.filter { $0.value != .null }) { _, sent in sent }
        // A `properties` that is not an object stays as sent, for the import's reading to refuse.
        if !nested.isEmpty, result["properties"] == nil { result["properties"] = .object(nested) }
        return result
    }

    /// Content from a GeoJSON Feature with flat properties, validated as an import validates a
    /// feature; its `id` and the server fields are ignored. The error's path is inside the feature.
    public static func content(ofFeature members: [String: JSONValue]) throws(FieldError) -> AnnotationContent {
        guard case .string(let type)? = members["type"] else { throw FieldError(path: ["type"], message: "must be \"Feature\"") }
        let geometry: (type: String, coordinates: JSONValue)?
        switch members["geometry"] {
        case nil, .null?: geometry = nil
        case .object(let object)?:
            guard case .string(let geometryType)? = object["type"] else { throw FieldError(path: ["geometry", "type"], message: "must be \"Point\"") }
            geometry = (geometryType, object["coordinates"] ?? .null)
        default: throw FieldError(path: ["geometry"], message: "must be a GeoJSON Point")
        }
        let flat: [String: JSONValue]
        switch members["properties"] {
        case nil, .null?: flat = [:]
        case .object(let object)?: flat = object
        default: throw FieldError(path: ["properties"], message: "must be an object or null")
        }
        return try AnnotationContent(feature: GeoJSONFeature(type: type, geometry: geometry, properties: importable(flat)))
    }

    /// `content` with a JSON merge patch (RFC 7386) of its feature applied: `geometry` replaces the
    /// point, `properties` merge member by member in the flat form (null removes). Validated.
    public static func content(_ content: AnnotationContent, patchedWith patch: [String: JSONValue]) throws(FieldError) -> AnnotationContent {
        if let type = patch["type"], type != .string("Feature") { throw FieldError(path: ["type"], message: "must be \"Feature\"") }
        for key in patch.keys where !["type", "geometry", "properties"].contains(key) {
            throw FieldError(path: [key], message: "is not a member a feature patch may change (type, geometry, properties)")
        }
        if patch["geometry"] == .null { throw FieldError(path: ["geometry"], message: "cannot be removed: an annotation is a Point") }
        var feature = feature(of: content)
        if let geometry = patch["geometry"] { feature["geometry"] = geometry }
        switch patch["properties"] {
        case nil: break
        case .null?: feature["properties"] = .object([:])
        case .object(let members)?: feature["properties"] = .object(FreeProperties.merge(properties(of: content), members))
        default: throw FieldError(path: ["properties"], message: "must be an object or null")
        }
        return try Self.content(ofFeature: feature)
    }
}
