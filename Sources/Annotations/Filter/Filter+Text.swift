import MapGeometry
import WireJSON

/// A recursive-descent parser over CQL2-Text tokens (OGC 21-065r2's BNF); the constructs it
/// reads are checked as CQL2-JSON ones are (``Filter`` `+Checks`).
struct CQL2TextParser {
    enum Token: Hashable {
        case word(String), quoted(String), string(String), number(JSONNumber), symbol(String)
    }

    var tokens: [(token: Token, offset: Int)]
    var index = 0

    init(tokens: [(token: Token, offset: Int)]) {
        self.tokens = tokens
    }

    var atEnd: Bool { index >= tokens.count }
    var peek: Token? { atEnd ? nil : tokens[index].token }
    func peek(_ ahead: Int) -> Token? { index + ahead < tokens.count ? tokens[index + ahead].token : nil }

    /// A syntax error at the current token.
    func error(_ message: String) -> FilterError { error(message, at: index) }

    func error(_ message: String, at token: Int, kind: FilterError.Kind = .syntax) -> FilterError {
        let offset = token >= tokens.count ? (tokens.last.map { $0.offset + 1 } ?? 0) : tokens[token].offset
        return FilterError(kind, FieldError(path: [], message: "at character \(offset + 1): \(message)"))
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
        guard isKeyword(peek, word) else { return false }
        index += 1
        return true
    }

    func isKeyword(_ token: Token?, _ word: String) -> Bool {
        guard case .word(let found)? = token else { return false }
        return found.uppercased() == word
    }

    mutating func symbol(_ symbol: String) throws(FilterError) {
        guard peek == .symbol(symbol) else { throw error("expected \(symbol), found \(describe(peek))") }
        index += 1
    }

    /// Runs a shared check, re-pointing its error at the construct that starts at token `start`.
    func checked<T>(from start: Int, _ build: () throws(FilterError) -> T) throws(FilterError) -> T {
        do { return try build() } catch { throw self.error(error.field.message, at: start, kind: error.kind) }
    }

    mutating func expression(depth: Int) throws(FilterError) -> Filter {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        var terms = [try term(depth: depth)]
        while keyword("OR") { terms.append(try term(depth: depth)) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func term(depth: Int) throws(FilterError) -> Filter {
        var factors = [try factor(depth: depth)]
        while keyword("AND") { factors.append(try factor(depth: depth)) }
        return factors.count == 1 ? factors[0] : .and(factors)
    }

    mutating func factor(depth: Int) throws(FilterError) -> Filter {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        if keyword("NOT") { return .not(try factor(depth: depth + 1)) }
        if peek == .symbol("("), !parenthesisOpensAValue {
            index += 1
            let inner = try expression(depth: depth + 1)
            try symbol(")")
            return inner
        }
        if case .word(let word)? = peek, peek(1) == .symbol("(") {
            if let predicate = Filter.SpatialPredicate(rawValue: word.lowercased()) { return try function(depth: depth) { a, b throws(FilterError) in try Filter.makeSpatial(predicate, a, b) } }
            if let predicate = Filter.TemporalPredicate.named(word) { return try function(depth: depth) { a, b throws(FilterError) in try Filter.makeTemporal(predicate, a, b) } }
            if let predicate = Filter.ArrayPredicate.named(word) { return try function(depth: depth, arrays: true) { a, b throws(FilterError) in try Filter.makeArray(predicate, a, b) } }
        }
        let start = index
        let subject = try scalar(depth: depth + 1)
        if case .boolean(let value) = subject, !isPredicateAhead { return .literal(value) }
        return try predicate(subject, from: start, depth: depth)
    }

    /// Whether the `(` here opens a value (`(3*(900000+100000)) > x`, `(a) LIKE 'b%'`) rather than a
    /// group of conditions: what follows its matching `)` says.
    var parenthesisOpensAValue: Bool {
        var level = 0
        var position = index
        while position < tokens.count {
            switch tokens[position].token {
            case .symbol("("): level += 1
            case .symbol(")"):
                level -= 1
                if level == 0 {
                    let next = position + 1 < tokens.count ? tokens[position + 1].token : nil
                    return isPredicateOrOperator(next, after: position + 2 < tokens.count ? tokens[position + 2].token : nil)
                }
            default: break
            }
            position += 1
        }
        return false
    }

    func isPredicateOrOperator(_ token: Token?, after: Token?) -> Bool {
        switch token {
        case .symbol(let symbol)?: return symbol != ")" && symbol != ","
        case .word(let word)?:
            let upper = word.uppercased()
            if upper == "NOT" { return ["LIKE", "IN", "BETWEEN"].contains { isKeyword(after, $0) } }
            return ["LIKE", "IN", "BETWEEN", "IS", "DIV"].contains(upper)
        default: return false
        }
    }

    /// Whether a comparison or another predicate keyword follows (so `TRUE` alone is a literal filter).
    var isPredicateAhead: Bool {
        switch peek {
        case .symbol(let symbol)?: return symbol != ")" && symbol != ","
        case .word(let word)?: return ["LIKE", "IN", "BETWEEN", "IS", "NOT"].contains(word.uppercased())
        default: return false
        }
    }

    mutating func predicate(_ subject: Filter.Expression, from start: Int, depth: Int) throws(FilterError) -> Filter {
        if case .symbol(let symbol)? = peek, let comparison = Filter.Comparison(rawValue: symbol) {
            index += 1
            let other = try scalar(depth: depth + 1)
            return try checked(from: start) { () throws(FilterError) in try Filter.makeComparison(comparison, subject, other) }
        }
        if keyword("IS") {
            let negated = keyword("NOT")
            guard keyword("NULL") else { throw error("expected NULL, found \(describe(peek))") }
            return negated ? .not(.isNull(subject)) : .isNull(subject)
        }
        let negated = keyword("NOT")
        let filter: Filter
        if keyword("LIKE") {
            let patternStart = index
            let pattern = try scalar(depth: depth + 1)
            filter = try checked(from: patternStart) { () throws(FilterError) in try Filter.makeLike(subject, pattern) }
        } else if keyword("IN") {
            try symbol("(")
            var list = [try scalar(depth: depth + 1)]
            while peek == .symbol(",") {
                index += 1
                list.append(try scalar(depth: depth + 1))
            }
            try symbol(")")
            filter = try checked(from: start) { () throws(FilterError) in try Filter.makeIn(subject, list) }
        } else if keyword("BETWEEN") {
            let low = try scalar(depth: depth + 1)
            guard keyword("AND") else { throw error("expected AND, found \(describe(peek))") }
            let high = try scalar(depth: depth + 1)
            filter = try checked(from: start) { () throws(FilterError) in try Filter.makeBetween(subject, low, high) }
        } else {
            throw error("expected a comparison, LIKE, IN, BETWEEN or IS NULL, found \(describe(peek))")
        }
        return negated ? .not(filter) : filter
    }

    /// `NAME(a, b)` of a spatial, temporal or array function; `arrays` reads `(…)` arguments as arrays.
    mutating func function(depth: Int, arrays: Bool = false, _ build: (Filter.Expression, Filter.Expression) throws(FilterError) -> Filter) throws(FilterError) -> Filter {
        let start = index
        index += 1
        try symbol("(")
        let first = arrays ? try arrayOrScalar(depth: depth + 1) : try scalar(depth: depth + 1)
        try symbol(",")
        let second = arrays ? try arrayOrScalar(depth: depth + 1) : try scalar(depth: depth + 1)
        try symbol(")")
        return try checked(from: start) { () throws(FilterError) in try build(first, second) }
    }
}
