import MapGeometry
import WireJSON

extension CQL2TextParser {
    /// A WKT geometry (`POINT`, `LINESTRING`, `POLYGON`, `MULTIPOINT`, `MULTILINESTRING`,
    /// `MULTIPOLYGON`, `GEOMETRYCOLLECTION`) or `BBOX(west, south, east, north)` at the current
    /// word; nil (nothing read) when the word names none of them.
    mutating func geometryLiteral() throws(FilterError) -> FilterGeometry? {
        guard case .word(let word)? = peek else { return nil }
        let start = index
        switch word.uppercased() {
        case "POINT":
            index += 1
            try symbol("(")
            let point = try position()
            try symbol(")")
            return .point(point)
        case "LINESTRING":
            index += 1
            return .lineString(try line())
        case "POLYGON":
            index += 1
            return .polygons([try rings()])
        case "MULTIPOINT":
            index += 1
            // `MULTIPOINT((1 2), (3 4))` or `MULTIPOINT(1 2, 3 4)`.
            return .multiPoint(try list { (parser: inout CQL2TextParser) throws(FilterError) in
                guard parser.peek == .symbol("(") else { return try parser.position() }
                parser.index += 1
                let point = try parser.position()
                try parser.symbol(")")
                return point
            })
        case "MULTILINESTRING":
            index += 1
            return .multiLineString(try list { (parser: inout CQL2TextParser) throws(FilterError) in try parser.line() })
        case "MULTIPOLYGON":
            index += 1
            return .polygons(try list { (parser: inout CQL2TextParser) throws(FilterError) in try parser.rings() })
        case "GEOMETRYCOLLECTION":
            index += 1
            return .collection(try list { (parser: inout CQL2TextParser) throws(FilterError) in
                guard let part = try parser.geometryLiteral() else {
                    throw parser.error("expected a geometry, found \(parser.describe(parser.peek))")
                }
                return part
            })
        case "BBOX":
            index += 1
            try symbol("(")
            var values = [try number()]
            while peek == .symbol(",") {
                index += 1
                values.append(try number())
            }
            try symbol(")")
            guard values.count == 4 || values.count == 6 else { throw error("BBOX takes 4 numbers (west, south, east, north) or 6 (with heights)", at: start, kind: .invalid) }
            let (west, south, east, north) = values.count == 4 ? (values[0], values[1], values[2], values[3]) : (values[0], values[1], values[3], values[4])
            do {
                return .bbox(try BoundingBox(validatingWest: west, south: south, east: east, north: north))
            } catch {
                throw self.error("BBOX \(error.description)", at: start, kind: .invalid)
            }
        default:
            return nil
        }
    }

    /// `( item, item, … )`.
    mutating func list<T>(_ item: (inout CQL2TextParser) throws(FilterError) -> T) throws(FilterError) -> [T] {
        try symbol("(")
        var items = [try item(&self)]
        while peek == .symbol(",") {
            index += 1
            items.append(try item(&self))
        }
        try symbol(")")
        return items
    }

    mutating func line() throws(FilterError) -> [Coordinate] {
        let start = index
        let points = try list { (parser: inout CQL2TextParser) throws(FilterError) in try parser.position() }
        guard points.count >= 2 else { throw error("a line has at least 2 positions", at: start, kind: .invalid) }
        return points
    }

    mutating func rings() throws(FilterError) -> [[Coordinate]] {
        try list { (parser: inout CQL2TextParser) throws(FilterError) in
            let start = parser.index
            let ring = try parser.list { (parser: inout CQL2TextParser) throws(FilterError) in try parser.position() }
            guard ring.count >= 4, ring.first == ring.last else { throw parser.error("a ring must be closed and have at least 4 positions", at: start, kind: .invalid) }
            return ring
        }
    }

    /// `longitude latitude [height]`.
    mutating func position() throws(FilterError) -> Coordinate {
        let start = index
        let (longitude, latitude) = (try number(), try number())
        if case .number? = peek { _ = try number() }
        guard (-180...180).contains(longitude), (-90...90).contains(latitude) else {
            throw error("a position is longitude (−180…180) then latitude (−90…90), got \(longitude) \(latitude)", at: start, kind: .invalid)
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    mutating func number() throws(FilterError) -> Double {
        guard case .number(let value)? = peek, value.double.isFinite else { throw error("expected a number, found \(describe(peek))") }
        index += 1
        return value.double
    }
}
