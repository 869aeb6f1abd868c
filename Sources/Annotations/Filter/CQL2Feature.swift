public import MapGeometry
public import Foundation
import Timeline
public import WireJSON

/// What a CQL2 filter reads of a feature: its properties by name and its geometry. Annotations
/// and devices are points (the fast path), regions polygons.
public protocol CQL2Feature {
    /// The value of a built-in field or a free property (dotted names reach into objects; see
    /// ``Filter/freePropertyPrefix``); nil when missing or null.
    func cql2Value(of property: String) -> Filter.Value?
    /// The feature's geometry: `.point` for a point feature.
    var cql2Geometry: FilterGeometry { get }
}

extension Filter {
    /// A value while a filter is evaluated.
    public enum Value: Hashable, Sendable {
        case string(String)
        case number(JSONNumber)
        case boolean(Bool)
        /// Microseconds since 1970 (UTC); `isDate` for a day (its midnight).
        case instant(Int64, isDate: Bool)
        /// Ends in microseconds; nil is open (`..`).
        case interval(Int64?, Int64?)
        case array([Value?])
        case geometry(FilterGeometry)
        /// A JSON object: equal to nothing, ordered with nothing.
        case object

        /// A free property's JSON value; nil for null.
        public init?(_ json: JSONValue) {
            switch json {
            case .null: return nil
            case .string(let text): self = .string(text)
            case .number(let number): self = .number(number)
            case .bool(let flag): self = .boolean(flag)
            case .array(let items): self = .array(items.map(Value.init))
            case .object: self = .object
            }
        }

        /// A timestamp field.
        public init(_ date: Date) {
            self = .instant(Instant(secondsSince1970: date.timeIntervalSince1970).microseconds, isDate: false)
        }
    }

    /// The free property `name` (dots reach into objects) of `properties`; nil when missing or null.
    public static func freeProperty(_ name: String, in properties: [String: JSONValue]) -> Value? {
        guard name.utf8.contains(UInt8(ascii: ".")) else { return properties[name].flatMap(Value.init) }
        var value: JSONValue? = .object(properties)
        for part in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard case .object(let members)? = value else { return nil }
            value = members[String(part)]
        }
        return value.flatMap(Value.init)
    }
}

extension Annotation: CQL2Feature {
    public func cql2Value(of property: String) -> Filter.Value? {
        switch property {
        case "id": return .string(id.description)
        case "kind": return content.kind.map(Filter.Value.string)
        case "clusteringIdentifier": return content.clusteringIdentifier.map(Filter.Value.string)
        case "title": return content.title.map(Filter.Value.string)
        case "subtitle": return content.subtitle.map(Filter.Value.string)
        case "externalId": return content.externalId.map(Filter.Value.string)
        case "displayPriority": return .number(JSONNumber(Double(content.displayPriority)))
        case "createdAt": return Filter.Value(createdAt)
        case "updatedAt": return Filter.Value(updatedAt)
        case Filter.geometryProperty: return .geometry(.point(content.coordinate))
        default:
            if property.hasPrefix(Filter.freePropertyPrefix), Filter.fields[String(property.dropFirst(Filter.freePropertyPrefix.count))] != nil {
                return Filter.freeProperty(String(property.dropFirst(Filter.freePropertyPrefix.count)), in: content.properties)
            }
            return Filter.freeProperty(property, in: content.properties)
        }
    }

    public var cql2Geometry: FilterGeometry { .point(content.coordinate) }
}

/// A GeoJSON feature as a filter reads it: `id`, its flat properties by name (a name with dots is
/// first a key of its own, `properties.name`, then a path into objects) and its geometry. What
/// the /ogc collections that are not annotations (devices, regions) filter.
public struct GeoJSONFeatureValues: CQL2Feature {
    let id: JSONValue?
    let properties: [String: JSONValue]
    public let cql2Geometry: FilterGeometry

    /// The feature's `id`, `properties` and `geometry`; nil when its geometry is not one a filter reads.
    public init?(_ feature: [String: JSONValue]) {
        guard let geometry = feature["geometry"], let shape = try? CQL2JSONReader().geometry(geometry, at: []) else { return nil }
        if case .object(let properties)? = feature["properties"] { self.properties = properties } else { self.properties = [:] }
        (id, cql2Geometry) = (feature["id"], shape)
    }

    public func cql2Value(of property: String) -> Filter.Value? {
        if property == "id", let id { return Filter.Value(id) }
        if property == Filter.geometryProperty { return .geometry(cql2Geometry) }
        if let value = properties[property] { return Filter.Value(value) }
        return Filter.freeProperty(property, in: properties)
    }
}
