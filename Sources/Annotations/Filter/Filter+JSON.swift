import MapGeometry
import WireJSON

/// The CQL2-JSON reader: one function per grammar rule, each told where its value sits.
struct CQL2JSONReader {
    func syntax(_ path: [String], _ message: String) -> FilterError { FilterError(.syntax, FieldError(path: path, message: message)) }

    /// An `{"op": …, "args": […]}` object's operator (lowercased) and arguments.
    func operation(_ value: JSONValue, at path: [String]) -> (op: String, written: String, args: [JSONValue])? {
        guard case .object(let members) = value, case .string(let op)? = members["op"], case .array(let args)? = members["args"] else { return nil }
        return (op.lowercased(), op, args)
    }

    func boolean(_ value: JSONValue, at path: [String], depth: Int) throws(FilterError) -> Filter {
        guard depth < Filter.maxDepth else { throw syntax(path, "nests deeper than \(Filter.maxDepth) levels") }
        if case .bool(let literal) = value { return .literal(literal) }
        guard case .object(let members) = value, case .string? = members["op"] else {
            throw syntax(path, #"must be a CQL2 expression: {"op": …, "args": […]} or true/false"#)
        }
        guard let (op, written, args) = operation(value, at: path) else { throw syntax(path + ["args"], "must be an array of arguments") }
        let at = { (index: Int) in path + ["args", String(index)] }
        func count(_ expected: ClosedRange<Int>) throws(FilterError) {
            guard expected.contains(args.count) else {
                throw syntax(path + ["args"], "\(written) takes \(expected.lowerBound == expected.upperBound ? "\(expected.lowerBound)" : "at least \(expected.lowerBound)") arguments, got \(args.count)")
            }
        }
        func two() throws(FilterError) -> (Filter.Expression, Filter.Expression) {
            try count(2...2)
            return (try expression(args[0], at: at(0), depth: depth + 1), try expression(args[1], at: at(1), depth: depth + 1))
        }
        /// Runs a shared check, placing its error (relative to this operation) under `path`.
        func placed(_ build: () throws(FilterError) -> Filter) throws(FilterError) -> Filter {
            do { return try build() } catch { throw FilterError(error.kind, error.field.nested(under: path)) }
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
            let (subject, pattern) = try two()
            return try placed { () throws(FilterError) in try Filter.makeLike(subject, pattern) }
        case "in":
            try count(2...2)
            let subject = try expression(args[0], at: at(0), depth: depth + 1)
            guard case .array(let items) = args[1] else { throw syntax(at(1), "must be an array of values") }
            var list: [Filter.Expression] = []
            for (index, item) in items.enumerated() { list.append(try expression(item, at: at(1) + [String(index)], depth: depth + 1)) }
            return try placed { () throws(FilterError) in try Filter.makeIn(subject, list) }
        case "between":
            try count(3...3)
            let values = try (0..<3).map { index throws(FilterError) in try expression(args[index], at: at(index), depth: depth + 1) }
            return try placed { () throws(FilterError) in try Filter.makeBetween(values[0], values[1], values[2]) }
        case "isnull":
            try count(1...1)
            return .isNull(try expression(args[0], at: at(0), depth: depth + 1))
        default:
            if let comparison = Filter.Comparison(rawValue: op) {
                let (a, b) = try two()
                return try placed { () throws(FilterError) in try Filter.makeComparison(comparison, a, b) }
            }
            if let predicate = Filter.SpatialPredicate(rawValue: op) {
                let (a, b) = try two()
                return try placed { () throws(FilterError) in try Filter.makeSpatial(predicate, a, b) }
            }
            if let predicate = Filter.TemporalPredicate.named(op) {
                let (a, b) = try two()
                return try placed { () throws(FilterError) in try Filter.makeTemporal(predicate, a, b) }
            }
            if let predicate = Filter.ArrayPredicate.named(op) {
                let (a, b) = try two()
                return try placed { () throws(FilterError) in try Filter.makeArray(predicate, a, b) }
            }
            throw Filter.invalid(path + ["op"], "\(written) is not a supported predicate (comparisons, like, in, between, isNull, and, or, not, S_*, T_*, A_*)")
        }
    }

    func expression(_ value: JSONValue, at path: [String], depth: Int) throws(FilterError) -> Filter.Expression {
        guard depth < Filter.maxDepth else { throw syntax(path, "nests deeper than \(Filter.maxDepth) levels") }
        switch value {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let flag): return .boolean(flag)
        case .array(let items):
            return .array(try items.enumerated().map { index, item throws(FilterError) in try expression(item, at: path + [String(index)], depth: depth + 1) })
        case .null:
            throw syntax(path, "must be a value, a property or a function (null is written with IS NULL)")
        case .object(let members):
            if let (op, written, args) = operation(value, at: path) {
                return try function(op, written, args, at: path, depth: depth)
            }
            if members.count == 1, let (key, inner) = members.first {
                switch key {
                case "property":
                    guard case .string(let name) = inner, !name.isEmpty else { throw syntax(path + ["property"], "must name a property") }
                    return .property(name)
                case "date", "timestamp":
                    guard case .string(let text) = inner, let literal = Filter.TemporalLiteral(text, isDate: key == "date") else {
                        throw Filter.invalid(path + [key], key == "date" ? "must be a date (2021-04-16)" : "must be an RFC 3339 date-time (2021-04-16T10:13:19Z)")
                    }
                    return .instant(literal)
                case "interval":
                    guard case .array(let ends) = inner, ends.count == 2 else { throw syntax(path + ["interval"], "must be [start, end]") }
                    let parts = try (0..<2).map { index throws(FilterError) in try intervalEnd(ends[index], at: path + ["interval", String(index)], depth: depth + 1) }
                    return .interval(parts[0], parts[1])
                default: break
                }
            }
            return .geometry(try geometry(value, at: path))
        }
    }

    func function(_ op: String, _ written: String, _ args: [JSONValue], at path: [String], depth: Int) throws(FilterError) -> Filter.Expression {
        let folding = TextFolding(rawValue: op)
        let arithmetic = Filter.ArithmeticOperator(rawValue: op)
        guard folding != nil || arithmetic != nil else {
            throw Filter.invalid(path + ["op"], "\(written) is not a supported function here (CASEI, ACCENTI, + - * / % div ^)")
        }
        let expected = folding != nil ? 1 : 2
        guard args.count == expected else { throw syntax(path + ["args"], "\(written) takes \(expected) argument\(expected == 1 ? "" : "s"), got \(args.count)") }
        let values = try args.enumerated().map { index, arg throws(FilterError) in try expression(arg, at: path + ["args", String(index)], depth: depth + 1) }
        do throws(FilterError) {
            if let folding { return try Filter.makeFold(folding, values[0]) }
            return try Filter.makeArithmetic(arithmetic!, values[0], values[1])  // one of the two is set (guard above)
        } catch {
            throw FilterError(error.kind, error.field.nested(under: path))
        }
    }

    /// An interval's end: `..`, a date or date-time string, a property, or a `date`/`timestamp` object.
    func intervalEnd(_ value: JSONValue, at path: [String], depth: Int) throws(FilterError) -> Filter.Expression {
        if case .string(let text) = value {
            if text == ".." { return .openEnd }
            guard let literal = Filter.TemporalLiteral(text, isDate: text.utf8.count == 10) else {
                throw Filter.invalid(path, "must be '..', a date (2021-04-16) or an RFC 3339 date-time")
            }
            return .instant(literal)
        }
        let end = try expression(value, at: path, depth: depth)
        switch end {
        case .instant, .property: return end
        default: throw Filter.invalid(path, "must be '..', a date, a date-time or a property")
        }
    }
}
