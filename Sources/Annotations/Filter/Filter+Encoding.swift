import MapGeometry
public import WireJSON

extension Filter {
    /// The filter as CQL2-JSON that ``init(json:)`` reads back to an equal filter: what a cluster
    /// id carries to name the filter that chose its members.
    public var json: JSONValue {
        switch self {
        case .and(let filters): return Self.op("and", filters.map(\.json))
        case .or(let filters): return Self.op("or", filters.map(\.json))
        case .not(let filter): return Self.op("not", [filter.json])
        case .comparison(let comparison, let a, let b): return Self.op(comparison.rawValue, [a.json, b.json])
        case .like(let subject, let pattern): return Self.op("like", [subject.json, pattern.written.json])
        case .in(let subject, let list): return Self.op("in", [subject.json, .array(list.map(\.json))])
        case .between(let value, let low, let high): return Self.op("between", [value.json, low.json, high.json])
        case .isNull(let subject): return Self.op("isNull", [subject.json])
        case .spatial(let predicate, let a, let b): return Self.op(predicate.rawValue, [a.json, b.json])
        case .temporal(let predicate, let a, let b): return Self.op(predicate.rawValue, [a.json, b.json])
        case .array(let predicate, let a, let b): return Self.op(predicate.rawValue, [a.json, b.json])
        case .literal(let value): return .bool(value)
        }
    }

    static func op(_ name: String, _ args: [JSONValue]) -> JSONValue { .object(["op": .string(name), "args": .array(args)]) }
}

extension Filter.Expression {
    var json: JSONValue {
        switch self {
        case .property(let name): return .object(["property": .string(name)])
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .boolean(let flag): return .bool(flag)
        case .instant(let literal): return .object([literal.isDate ? "date" : "timestamp": .string(literal.text)])
        case .interval(let start, let end): return .object(["interval": .array([start.intervalEnd, end.intervalEnd])])
        case .openEnd: return .string("..")
        case .array(let items): return .array(items.map(\.json))
        case .geometry(let geometry): return geometry.json
        case .fold(let folding, let inner): return Filter.op(folding.rawValue, [inner.json])
        case .folded(let literal): return Filter.op(literal.folding.rawValue, [literal.inner.json])
        case .arithmetic(let op, let a, let b): return Filter.op(op.rawValue, [a.json, b.json])
        }
    }

    /// An interval's end: an instant as its plain string, as CQL2-JSON writes them.
    private var intervalEnd: JSONValue {
        if case .instant(let literal) = self { return .string(literal.text) }
        return json
    }
}

extension FilterGeometry {
    /// GeoJSON (a Polygon for one polygon), or `{"bbox": [west, south, east, north]}`.
    var json: JSONValue {
        func position(_ c: Coordinate) -> JSONValue { .array([.number(c.longitude), .number(c.latitude)]) }
        func line(_ points: [Coordinate]) -> JSONValue { .array(points.map(position)) }
        func rings(_ polygon: [[Coordinate]]) -> JSONValue { .array(polygon.map(line)) }
        func geoJSON(_ type: String, _ coordinates: JSONValue) -> JSONValue { .object(["type": .string(type), "coordinates": coordinates]) }
        switch self {
        case .point(let c): return geoJSON("Point", position(c))
        case .multiPoint(let points): return geoJSON("MultiPoint", line(points))
        case .lineString(let points): return geoJSON("LineString", line(points))
        case .multiLineString(let lines): return geoJSON("MultiLineString", .array(lines.map(line)))
        case .polygons(let polygons) where polygons.count == 1: return geoJSON("Polygon", rings(polygons[0]))
        case .polygons(let polygons): return geoJSON("MultiPolygon", .array(polygons.map(rings)))
        case .collection(let parts): return .object(["type": .string("GeometryCollection"), "geometries": .array(parts.map(\.json))])
        case .bbox(let box): return .object(["bbox": .array([box.west, box.south, box.east, box.north].map(JSONValue.number))])
        }
    }
}
