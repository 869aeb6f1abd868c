import MapGeometry
import WireJSON

extension CQL2JSONReader {
    static let geometryTypes = "Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection or {\"bbox\": […]}"

    /// A GeoJSON geometry or `{"bbox": [west, south, east, north]}` (a box of six numbers has heights, which are ignored).
    func geometry(_ value: JSONValue, at path: [String]) throws(FilterError) -> FilterGeometry {
        guard case .object(let members) = value else { throw syntax(path, "must be a value, a property, a function or a geometry (\(Self.geometryTypes))") }
        if case .array(let numbers)? = members["bbox"], members["type"] == nil {
            let values = try numbers.enumerated().map { index, number throws(FilterError) in try self.number(number, at: path + ["bbox", String(index)]) }
            guard values.count == 4 || values.count == 6 else { throw Filter.invalid(path + ["bbox"], "must be [west, south, east, north]") }
            let (west, south, east, north) = values.count == 4 ? (values[0], values[1], values[2], values[3]) : (values[0], values[1], values[3], values[4])
            do {
                return .bbox(try BoundingBox(validatingWest: west, south: south, east: east, north: north))
            } catch {
                // The box names its sides; the array has positions.
                let index = ["west": "0", "south": "1", "east": "2", "north": "3"][error.path.first ?? ""] ?? "3"
                throw Filter.invalid(path + ["bbox", index], error.message)
            }
        }
        guard case .string(let type)? = members["type"] else { throw syntax(path, "must be a value, a property, a function or a geometry (\(Self.geometryTypes))") }
        if type == "GeometryCollection" {
            guard case .array(let parts)? = members["geometries"] else { throw Filter.invalid(path + ["geometries"], "must be an array of geometries") }
            return .collection(try parts.enumerated().map { index, part throws(FilterError) in try geometry(part, at: path + ["geometries", String(index)]) })
        }
        guard let coordinates = members["coordinates"] else { throw Filter.invalid(path + ["coordinates"], "must be the geometry's coordinates") }
        let at = path + ["coordinates"]
        switch type {
        case "Point": return .point(try position(coordinates, at: at))
        case "MultiPoint": return .multiPoint(try positions(coordinates, at: at))
        case "LineString": return .lineString(try line(coordinates, at: at))
        case "MultiLineString": return .multiLineString(try list(coordinates, at: at) { value, path throws(FilterError) in try line(value, at: path) })
        case "Polygon": return .polygons([try polygon(coordinates, at: at)])
        case "MultiPolygon":
            let polygons = try list(coordinates, at: at) { value, path throws(FilterError) in try polygon(value, at: path) }
            guard !polygons.isEmpty else { throw Filter.invalid(at, "must be an array of polygons") }
            return .polygons(polygons)
        default:
            throw Filter.invalid(path + ["type"], "must be \(Self.geometryTypes), got \(type)")
        }
    }

    func list<T>(_ value: JSONValue, at path: [String], _ item: (JSONValue, [String]) throws(FilterError) -> T) throws(FilterError) -> [T] {
        guard case .array(let items) = value else { throw Filter.invalid(path, "must be an array") }
        return try items.enumerated().map { index, element throws(FilterError) in try item(element, path + [String(index)]) }
    }

    func positions(_ value: JSONValue, at path: [String]) throws(FilterError) -> [Coordinate] {
        try list(value, at: path) { item, path throws(FilterError) in try position(item, at: path) }
    }

    func line(_ value: JSONValue, at path: [String]) throws(FilterError) -> [Coordinate] {
        let points = try positions(value, at: path)
        guard points.count >= 2 else { throw Filter.invalid(path, "a line has at least 2 positions") }
        return points
    }

    func polygon(_ value: JSONValue, at path: [String]) throws(FilterError) -> [[Coordinate]] {
        let rings = try list(value, at: path) { ring, at throws(FilterError) in
            let points = try positions(ring, at: at)
            guard points.count >= 4, points.first == points.last else { throw Filter.invalid(at, "must be a closed ring of at least 4 positions (first = last)") }
            return points
        }
        guard !rings.isEmpty else { throw Filter.invalid(path, "must be an array of linear rings") }
        return rings
    }

    func position(_ value: JSONValue, at path: [String]) throws(FilterError) -> Coordinate {
        guard case .array(let numbers) = value, numbers.count == 2 || numbers.count == 3 else {
            throw Filter.invalid(path, "must be a position [longitude, latitude]")
        }
        let (longitude, latitude) = (try number(numbers[0], at: path + ["0"]), try number(numbers[1], at: path + ["1"]))
        guard (-180...180).contains(longitude) else { throw Filter.invalid(path + ["0"], "must be between -180 and 180, got \(longitude)") }
        guard (-90...90).contains(latitude) else { throw Filter.invalid(path + ["1"], "must be between -90 and 90, got \(latitude)") }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    func number(_ value: JSONValue, at path: [String]) throws(FilterError) -> Double {
        guard case .number(let number) = value, number.double.isFinite else { throw Filter.invalid(path, "must be a number") }
        return number.double
    }
}
