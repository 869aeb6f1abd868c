import Annotations
import WireJSON

/// The queryables document (Part 3): a JSON Schema (2020-12) of the properties a filter may name.
enum OGCQueryables {
    /// A JSON type a property's values have.
    enum JSONType: String, Hashable, Sendable, Comparable {
        case string, number, integer, boolean, object, array

        /// The type of `value`; nil for null (which says nothing about the property's type).
        init?(_ value: JSONValue) {
            switch value {
            case .null: return nil
            case .string: self = .string
            case .number(let number): self = number.plainDouble.map { $0 == $0.rounded() && abs($0) < 9e15 } == true ? .integer : .number
            case .bool: self = .boolean
            case .object: self = .object
            case .array: self = .array
            }
        }

        static func < (a: JSONType, b: JSONType) -> Bool { a.rawValue < b.rawValue }
    }

    /// The schema of a property holding values of `types` (`integer` folds into `number` when both occur).
    static func schema(_ types: Set<JSONType>) -> JSONValue {
        var types = types
        if types.contains(.number) { types.remove(.integer) }
        let names = types.sorted().map { JSONValue.string($0.rawValue) }
        return .object(["type": names.count == 1 ? names[0] : .array(names)])
    }

    /// The annotation's own properties a filter may name (``Filter/fields``) and its point.
    static var builtIns: [String: JSONValue] {
        var properties: [String: JSONValue] = [
            Filter.geometryProperty: .object(["format": .string("geometry-point"), "$ref": .string("https://geojson.org/schema/Point.json")]),
        ]
        for (name, type) in Filter.fields {
            switch type {
            case .string: properties[name] = .object(["type": .string("string")])
            case .number: properties[name] = .object(["type": .string(name == "displayPriority" ? "integer" : "number")])
            case .timestamp: properties[name] = .object(["type": .string("string"), "format": .string("date-time")])
            case .geometry: break  // the point, above
            }
        }
        return properties
    }

    /// The whole document for a collection at `url` with these `properties`.
    static func document(url: String, title: String, properties: [String: JSONValue]) -> [String: JSONValue] {
        [
            "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
            "$id": .string(url),
            "type": .string("object"),
            "title": .string(title),
            "properties": .object(properties),
            // Any free property may be named (a missing one is null), so others are allowed.
            "additionalProperties": .bool(true),
            // The pre-standard list of names, the only form GDAL 3.6 reads (JSON Schema ignores unknown keywords).
            "queryables": .array(properties.keys.sorted().map { name in
                var entry: [String: JSONValue] = ["id": .string(name)]
                if case .string(let type)? = properties[name]?.objectValue?["type"] { entry["type"] = .string(type) }
                return .object(entry)
            }),
        ]
    }
}
