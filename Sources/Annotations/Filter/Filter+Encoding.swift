import MapGeometry
public import WireJSON

extension Filter {
    /// The filter as CQL2-JSON that ``init(json:)`` reads back to an equal filter: what a cluster
    /// id carries to name the filter that chose its members.
    public var json: JSONValue {
        func op(_ name: String, _ args: [JSONValue]) -> JSONValue { .object(["op": .string(name), "args": .array(args)]) }
        switch self {
        case .and(let filters): return op("and", filters.map(\.json))
        case .or(let filters): return op("or", filters.map(\.json))
        case .not(let filter): return op("not", [filter.json])
        case .comparison(let comparison, let a, let b): return op(comparison.rawValue, [a.json, b.json])
        case .like(let subject, let pattern): return op("like", [subject.json, .string(pattern.source)])
        case .in(let subject, let list): return op("in", [subject.json, .array(list.map(\.json))])
        case .between(let value, let low, let high): return op("between", [value.json, low.json, high.json])
        case .isNull(let subject): return op("isNull", [subject.json])
        case .spatial(let predicate, let geometry, let pointFirst):
            let point = JSONValue.object(["property": .string(Self.geometryProperty)])
            return op(predicate.rawValue, pointFirst ? [point, geometry.json] : [geometry.json, point])
        case .literal(let value): return .bool(value)
        }
    }
}

extension Filter.Scalar {
    var json: JSONValue {
        switch self {
        case .property(let name): return .object(["property": .string(name)])
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .boolean(let flag): return .bool(flag)
        }
    }
}

extension FilterGeometry {
    /// GeoJSON (a Polygon for one polygon), or `{"bbox": [west, south, east, north]}`.
    var json: JSONValue {
        func position(_ c: Coordinate) -> JSONValue { .array([.number(c.longitude), .number(c.latitude)]) }
        func rings(_ polygon: [[Coordinate]]) -> JSONValue { .array(polygon.map { .array($0.map(position)) }) }
        switch self {
        case .point(let c):
            return .object(["type": .string("Point"), "coordinates": position(c)])
        case .polygons(let polygons) where polygons.count == 1:
            return .object(["type": .string("Polygon"), "coordinates": rings(polygons[0])])
        case .polygons(let polygons):
            return .object(["type": .string("MultiPolygon"), "coordinates": .array(polygons.map(rings))])
        case .bbox(let box):
            return .object(["bbox": .array([box.west, box.south, box.east, box.north].map(JSONValue.number))])
        }
    }
}
