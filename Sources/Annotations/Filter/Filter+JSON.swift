public import MapGeometry
public import WireJSON

extension Filter {
    /// Reads CQL2-JSON. Every error is a ``FieldError`` whose path leads from the filter value to
    /// the offending member (`["args", "1", "args", "0"]`).
    public init(json: JSONValue) throws(FieldError) {
        self = try CQL2JSONReader().boolean(json, at: [], depth: 0)
    }
}

/// The CQL2-JSON reader: one function per grammar rule, each told where its value sits.
struct CQL2JSONReader {
    func boolean(_ value: JSONValue, at path: [String], depth: Int) throws(FieldError) -> Filter {
        guard depth < Filter.maxDepth else { throw FieldError(path: path, message: "nests deeper than \(Filter.maxDepth) levels") }
        if case .bool(let literal) = value { return .literal(literal) }
        guard case .object(let members) = value, case .string(let rawOp)? = members["op"] else {
            throw FieldError(path: path, message: #"must be a CQL2 expression: {"op": …, "args": […]} or true/false"#)
        }
        guard case .array(let args)? = members["args"] else { throw FieldError(path: path + ["args"], message: "must be an array of arguments") }
        let op = rawOp.lowercased()
        let at = { (index: Int) in path + ["args", String(index)] }
        func count(_ expected: ClosedRange<Int>) throws(FieldError) {
            guard expected.contains(args.count) else {
                throw FieldError(path: path + ["args"], message: "\(rawOp) takes \(expected.lowerBound == expected.upperBound ? "\(expected.lowerBound)" : "at least \(expected.lowerBound)") arguments, got \(args.count)")
            }
        }
        switch op {
        case "and", "or":
            try count(2...Int.max)
            var filters: [Filter] = []
            for (index, arg) in args.enumerated() { filters.append(try boolean(arg, at: at(index), depth: depth + 1)) }
            return op == "and" ? .and(filters) : .or(filters)
        case "not":
            try count(1...1)
            return .not(try boolean(args[0], at: at(0), depth: depth + 1))
        case "like":
            try count(2...2)
            let subject = try scalar(args[0], at: at(0))
            guard case .string(let pattern) = args[1] else { throw FieldError(path: at(1), message: "must be a pattern string (casei and accenti are not supported)") }
            try expect(subject, .string, at: at(0), for: "like")
            return .like(subject, pattern: try LikePattern(checking: pattern, at: at(1)))
        case "in":
            try count(2...2)
            let subject = try scalar(args[0], at: at(0))
            guard case .array(let items) = args[1], !items.isEmpty else { throw FieldError(path: at(1), message: "must be a non-empty array of values") }
            var list: [Filter.Scalar] = []
            for (index, item) in items.enumerated() {
                let value = try scalar(item, at: at(1) + [String(index)])
                try compatible(subject, value, at: at(1) + [String(index)])
                list.append(value)
            }
            return .in(subject, list)
        case "between":
            try count(3...3)
            let values = [try scalar(args[0], at: at(0)), try scalar(args[1], at: at(1)), try scalar(args[2], at: at(2))]
            for index in 1...2 { try compatible(values[0], values[index], at: at(index)) }
            return .between(values[0], values[1], values[2])
        case "isnull":
            try count(1...1)
            return .isNull(try scalar(args[0], at: at(0)))
        case "s_intersects", "s_within", "s_contains":
            try count(2...2)
            let predicate = Filter.SpatialPredicate(rawValue: op)!  // the three cases above
            if isGeometryProperty(args[0]) { return .spatial(predicate, try geometry(args[1], at: at(1)), pointFirst: true) }
            if isGeometryProperty(args[1]) { return .spatial(predicate, try geometry(args[0], at: at(0)), pointFirst: false) }
            throw FieldError(path: path + ["args"], message: #"one argument must be {"property": "geometry"} (the annotation's point)"#)
        default:
            if let comparison = Filter.Comparison(rawValue: op) {
                try count(2...2)
                let (left, right) = (try scalar(args[0], at: at(0)), try scalar(args[1], at: at(1)))
                try compatible(left, right, at: at(1))
                return .comparison(comparison, left, right)
            }
            throw FieldError(path: path + ["op"], message: "\(rawOp) is not a supported operator (comparison, like, in, between, isNull, and, or, not, s_intersects, s_within, s_contains)")
        }
    }

    func scalar(_ value: JSONValue, at path: [String]) throws(FieldError) -> Filter.Scalar {
        switch value {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let flag): return .boolean(flag)
        case .object(let members) where members.count == 1:
            guard case .string(let name)? = members["property"] else { break }
            guard !name.isEmpty else { throw FieldError(path: path + ["property"], message: "must name a property") }
            guard name != Filter.geometryProperty else { throw FieldError(path: path, message: "geometry can only be compared with a spatial operator (s_intersects, s_within, s_contains)") }
            return .property(name)
        default: break
        }
        throw FieldError(path: path, message: #"must be a string, a number, a boolean or {"property": name} (timestamps, functions and arrays are not supported)"#)
    }

    /// Refuses a known field compared with a literal of another type (`displayPriority` with a string).
    func compatible(_ a: Filter.Scalar, _ b: Filter.Scalar, at path: [String]) throws(FieldError) {
        if case .property(let name) = a, let type = Filter.fields[name] { try expect(b, type, at: path, for: name) }
        if case .property(let name) = b, let type = Filter.fields[name] { try expect(a, type, at: path, for: name) }
    }

    func expect(_ scalar: Filter.Scalar, _ type: Filter.FieldType, at path: [String], for name: String) throws(FieldError) {
        switch (scalar, type) {
        case (.string, .number), (.boolean, _):
            throw FieldError(path: path, message: "must be a \(type == .number ? "number" : "string"), as \(name) is")
        case (.number, .string):
            throw FieldError(path: path, message: "must be a string, as \(name) is")
        case (.property(let other), _):
            if let otherType = Filter.fields[other], otherType != type {
                throw FieldError(path: path, message: "\(other) and \(name) are of different types")
            }
        default: return
        }
    }

    func isGeometryProperty(_ value: JSONValue) -> Bool {
        value == .object(["property": .string(Filter.geometryProperty)])
    }

    func geometry(_ value: JSONValue, at path: [String]) throws(FieldError) -> FilterGeometry {
        guard case .object(let members) = value else { throw FieldError(path: path, message: "must be a GeoJSON Point, Polygon or MultiPolygon, or {\"bbox\": […]}") }
        if case .array(let numbers)? = members["bbox"] {
            let values = try numbers.enumerated().map { index, number throws(FieldError) in try self.number(number, at: path + ["bbox", String(index)]) }
            guard values.count == 4 else { throw FieldError(path: path + ["bbox"], message: "must be [west, south, east, north]") }
            do {
                return .bbox(try BoundingBox(validatingWest: values[0], south: values[1], east: values[2], north: values[3]))
            } catch {
                // The box names its sides; the array has positions.
                let index = ["west": "0", "south": "1", "east": "2", "north": "3"][error.path.first ?? ""] ?? "3"
                throw FieldError(path: path + ["bbox", index], message: error.message)
            }
        }
        guard case .string(let type)? = members["type"], let coordinates = members["coordinates"] else {
            throw FieldError(path: path, message: "must be a GeoJSON Point, Polygon or MultiPolygon, or {\"bbox\": […]}")
        }
        let at = path + ["coordinates"]
        switch type {
        case "Point": return .point(try position(coordinates, at: at))
        case "Polygon": return .polygons([try polygon(coordinates, at: at)])
        case "MultiPolygon":
            guard case .array(let polygons) = coordinates, !polygons.isEmpty else { throw FieldError(path: at, message: "must be an array of polygons") }
            return .polygons(try polygons.enumerated().map { index, rings throws(FieldError) in try polygon(rings, at: at + [String(index)]) })
        default:
            throw FieldError(path: path + ["type"], message: "must be Point, Polygon or MultiPolygon, got \(type)")
        }
    }

    func polygon(_ value: JSONValue, at path: [String]) throws(FieldError) -> [[Coordinate]] {
        guard case .array(let rings) = value, !rings.isEmpty else { throw FieldError(path: path, message: "must be an array of linear rings") }
        return try rings.enumerated().map { index, ring throws(FieldError) in
            let at = path + [String(index)]
            guard case .array(let positions) = ring else { throw FieldError(path: at, message: "must be an array of positions") }
            let points = try positions.enumerated().map { offset, item throws(FieldError) in try position(item, at: at + [String(offset)]) }
            guard points.count >= 4, points.first == points.last else { throw FieldError(path: at, message: "must be a closed ring of at least 4 positions (first = last)") }
            return points
        }
    }

    func position(_ value: JSONValue, at path: [String]) throws(FieldError) -> Coordinate {
        guard case .array(let numbers) = value, numbers.count == 2 || numbers.count == 3 else {
            throw FieldError(path: path, message: "must be a position [longitude, latitude]")
        }
        let (longitude, latitude) = (try number(numbers[0], at: path + ["0"]), try number(numbers[1], at: path + ["1"]))
        guard (-180...180).contains(longitude) else { throw FieldError(path: path + ["0"], message: "must be between -180 and 180, got \(longitude)") }
        guard (-90...90).contains(latitude) else { throw FieldError(path: path + ["1"], message: "must be between -90 and 90, got \(latitude)") }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    func number(_ value: JSONValue, at path: [String]) throws(FieldError) -> Double {
        guard case .number(let number) = value, number.double.isFinite else { throw FieldError(path: path, message: "must be a number") }
        return number.double
    }
}
