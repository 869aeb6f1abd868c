public import MapGeometry
import WireJSON

extension Filter {
    /// Reads CQL2-Text (`kind = 'shop' AND rating >= 4 AND S_INTERSECTS(geometry, BBOX(2.2, 48.8, 2.5, 48.9))`).
    /// Keywords are case-insensitive; strings are single-quoted (`''` is a quote); a property is a
    /// name (`address.city`) or double-quoted. Errors say at which character the text went wrong.
    public init(text: String) throws(FieldError) {
        var parser = CQL2TextParser(tokens: try CQL2TextParser.tokenize(text))
        let filter = try parser.expression(depth: 0)
        guard parser.atEnd else { throw parser.error("unexpected \(parser.describe(parser.peek))") }
        self = filter
    }
}

/// A recursive-descent parser over CQL2-Text tokens; its filters are checked as CQL2-JSON ones are.
struct CQL2TextParser {
    enum Token: Hashable {
        case word(String), quoted(String), string(String), number(JSONNumber), symbol(String)
    }

    let tokens: [(token: Token, offset: Int)]
    var index = 0
    private let checks = CQL2JSONReader()

    init(tokens: [(token: Token, offset: Int)]) {
        self.tokens = tokens
    }

    var atEnd: Bool { index >= tokens.count }
    var peek: Token? { atEnd ? nil : tokens[index].token }

    func error(_ message: String) -> FieldError {
        let offset = atEnd ? (tokens.last.map { $0.offset + 1 } ?? 0) : tokens[index].offset
        return FieldError(path: [], message: "at character \(offset + 1): \(message)")
    }

    func describe(_ token: Token?) -> String {
        switch token {
        case nil: return "end of filter"
        case .word(let word)?: return word
        case .quoted(let name)?: return "\"\(name)\""
        case .string(let text)?: return "'\(text)'"
        case .number(let number)?: return "\(number)"
        case .symbol(let symbol)?: return symbol
        }
    }

    mutating func keyword(_ word: String) -> Bool {
        guard case .word(let found)? = peek, found.uppercased() == word else { return false }
        index += 1
        return true
    }

    mutating func symbol(_ symbol: String) throws(FieldError) {
        guard peek == .symbol(symbol) else { throw error("expected \(symbol), found \(describe(peek))") }
        index += 1
    }

    mutating func expression(depth: Int) throws(FieldError) -> Filter {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        var terms = [try term(depth: depth)]
        while keyword("OR") { terms.append(try term(depth: depth)) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func term(depth: Int) throws(FieldError) -> Filter {
        var factors = [try factor(depth: depth)]
        while keyword("AND") { factors.append(try factor(depth: depth)) }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    mutating func factor(depth: Int) throws(FieldError) -> Filter {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        if keyword("NOT") { return .not(try factor(depth: depth + 1)) }
        if peek == .symbol("(") {
            index += 1
            let inner = try expression(depth: depth + 1)
            try symbol(")")
            return inner
        }
        if case .word(let word)? = peek, let predicate = Filter.SpatialPredicate(rawValue: word.lowercased()) {
            index += 1
            return try spatial(predicate)
        }
        let subject = try scalar()
        if case .boolean(let value) = subject, !isPredicateAhead { return .literal(value) }
        return try predicate(subject)
    }

    /// Whether a comparison or another predicate keyword follows (so `TRUE` alone is a literal filter).
    var isPredicateAhead: Bool {
        switch peek {
        case .symbol(let symbol)?: return symbol != ")" && symbol != ","
        case .word(let word)?: return ["LIKE", "IN", "BETWEEN", "IS", "NOT"].contains(word.uppercased())
        default: return false
        }
    }

    mutating func predicate(_ subject: Filter.Scalar) throws(FieldError) -> Filter {
        if case .symbol(let symbol)? = peek, let comparison = Filter.Comparison(rawValue: symbol) {
            index += 1
            let other = try scalar()
            try checked { () throws(FieldError) in try checks.compatible(subject, other, at: []) }
            return .comparison(comparison, subject, other)
        }
        if keyword("IS") {
            let negated = keyword("NOT")
            guard keyword("NULL") else { throw error("expected NULL, found \(describe(peek))") }
            return negated ? .not(.isNull(subject)) : .isNull(subject)
        }
        let negated = keyword("NOT")
        let filter: Filter
        if keyword("LIKE") {
            guard case .string(let pattern)? = peek else { throw error("expected a pattern string, found \(describe(peek))") }
            index += 1
            try checked { () throws(FieldError) in try checks.expect(subject, .string, at: [], for: "like") }
            try checked { () throws(FieldError) in _ = try LikePattern(checking: pattern, at: []) }
            filter = .like(subject, pattern: LikePattern(pattern))
        } else if keyword("IN") {
            try symbol("(")
            var list = [try scalar()]
            while peek == .symbol(",") {
                index += 1
                list.append(try scalar())
            }
            try symbol(")")
            for item in list { try checked { () throws(FieldError) in try checks.compatible(subject, item, at: []) } }
            filter = .in(subject, list)
        } else if keyword("BETWEEN") {
            let low = try scalar()
            guard keyword("AND") else { throw error("expected AND, found \(describe(peek))") }
            let high = try scalar()
            for bound in [low, high] { try checked { () throws(FieldError) in try checks.compatible(subject, bound, at: []) } }
            filter = .between(subject, low, high)
        } else {
            throw error("expected a comparison, LIKE, IN, BETWEEN or IS NULL, found \(describe(peek))")
        }
        return negated ? .not(filter) : filter
    }

    mutating func spatial(_ predicate: Filter.SpatialPredicate) throws(FieldError) -> Filter {
        try symbol("(")
        let first = try geometryOrProperty()
        try symbol(",")
        let second = try geometryOrProperty()
        try symbol(")")
        switch (first, second) {
        case (nil, let geometry?): return .spatial(predicate, geometry, pointFirst: true)
        case (let geometry?, nil): return .spatial(predicate, geometry, pointFirst: false)
        default: throw error("one argument of \(predicate.rawValue.uppercased()) must be the property geometry (the annotation's point)")
        }
    }

    /// A geometry literal, or nil for the `geometry` property.
    mutating func geometryOrProperty() throws(FieldError) -> FilterGeometry? {
        guard case .word(let word)? = peek else { throw error("expected geometry or a geometry literal, found \(describe(peek))") }
        index += 1
        switch word.uppercased() {
        case "GEOMETRY" where word == Filter.geometryProperty: return nil
        case "POINT":
            try symbol("(")
            let point = try position()
            try symbol(")")
            return .point(point)
        case "POLYGON": return .polygons([try rings()])
        case "MULTIPOLYGON":
            try symbol("(")
            var polygons = [try rings()]
            while peek == .symbol(",") {
                index += 1
                polygons.append(try rings())
            }
            try symbol(")")
            return .polygons(polygons)
        case "BBOX":
            try symbol("(")
            var values = [try number()]
            for _ in 0..<3 {
                try symbol(",")
                values.append(try number())
            }
            try symbol(")")
            do {
                return .bbox(try BoundingBox(validatingWest: values[0], south: values[1], east: values[2], north: values[3]))
            } catch {
                throw self.error("BBOX \(error.description)")
            }
        default:
            throw error("expected geometry, POINT, POLYGON, MULTIPOLYGON or BBOX, found \(word)")
        }
    }

    mutating func rings() throws(FieldError) -> [[Coordinate]] {
        try symbol("(")
        var rings: [[Coordinate]] = []
        repeat {
            if !rings.isEmpty { index += 1 }
            try symbol("(")
            var ring = [try position()]
            while peek == .symbol(",") {
                index += 1
                ring.append(try position())
            }
            try symbol(")")
            guard ring.count >= 4, ring.first == ring.last else { throw error("a ring must be closed and have at least 4 positions") }
            rings.append(ring)
        } while peek == .symbol(",")
        try symbol(")")
        return rings
    }

    mutating func position() throws(FieldError) -> Coordinate {
        let (longitude, latitude) = (try number(), try number())
        guard (-180...180).contains(longitude), (-90...90).contains(latitude) else {
            throw error("a position is longitude (−180…180) then latitude (−90…90), got \(longitude) \(latitude)")
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    mutating func number() throws(FieldError) -> Double {
        guard case .number(let value)? = peek, value.double.isFinite else { throw error("expected a number, found \(describe(peek))") }
        index += 1
        return value.double
    }

    mutating func scalar() throws(FieldError) -> Filter.Scalar {
        let token = peek
        index += 1
        switch token {
        case .string(let text)?: return .string(text)
        case .number(let value)?: return .number(value)
        case .quoted(let name)?: return try property(name)
        case .word(let word)?:
            switch word.uppercased() {
            case "TRUE": return .boolean(true)
            case "FALSE": return .boolean(false)
            case "AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS", "NULL":
                index -= 1
                throw error("expected a value or a property, found \(word)")
            default: return try property(word)
            }
        default:
            index -= 1
            throw error("expected a value or a property, found \(describe(token))")
        }
    }

    func property(_ name: String) throws(FieldError) -> Filter.Scalar {
        guard name != Filter.geometryProperty else { throw error("geometry can only be used in S_INTERSECTS, S_WITHIN or S_CONTAINS") }
        return .property(name)
    }

    /// Runs a JSON-side check, re-pointing its error at the current place in the text.
    func checked(_ check: () throws(FieldError) -> Void) throws(FieldError) {
        do { try check() } catch { throw self.error(error.message) }
    }
}
