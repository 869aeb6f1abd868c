import MapGeometry
import WireJSON

extension CQL2TextParser {
    /// An arithmetic expression, the grammar's precedence: `+ -` below `* / % div` below `^`
    /// (right-associative) below a unary `-`.
    mutating func scalar(depth: Int) throws(FilterError) -> Filter.Expression {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        var left = try product(depth: depth)
        while true {
            let start = index
            let op: Filter.ArithmeticOperator
            var right: Filter.Expression
            switch peek {
            case .symbol("+")?, .symbol("-")?:
                op = peek == .symbol("+") ? .add : .subtract
                index += 1
                right = try product(depth: depth)
            case .number(let signed)? where signed.description.first == "-" || signed.description.first == "+":
                // `x -1`: the tokenizer read a signed number after a space; it is a subtraction.
                op = signed.description.first == "-" ? .subtract : .add
                guard let magnitude = JSONNumber(String(signed.description.dropFirst())) else { throw error("\(signed) is not a number") }
                tokens[index].token = .number(magnitude)
                right = try product(depth: depth)
            default:
                return left
            }
            let sides = (left, right)
            left = try checked(from: start) { () throws(FilterError) in try Filter.makeArithmetic(op, sides.0, sides.1) }
        }
    }

    mutating func product(depth: Int) throws(FilterError) -> Filter.Expression {
        var left = try power(depth: depth)
        while true {
            let op: Filter.ArithmeticOperator
            switch peek {
            case .symbol("*")?: op = .multiply
            case .symbol("/")?: op = .divide
            case .symbol("%")?: op = .remainder
            case let token where isKeyword(token, "DIV"): op = .integerDivide
            default: return left
            }
            let start = index
            index += 1
            let right = try power(depth: depth)
            let sides = (left, right)
            left = try checked(from: start) { () throws(FilterError) in try Filter.makeArithmetic(op, sides.0, sides.1) }
        }
    }

    mutating func power(depth: Int) throws(FilterError) -> Filter.Expression {
        let base = try unary(depth: depth)
        guard peek == .symbol("^") else { return base }
        let start = index
        index += 1
        let exponent = try power(depth: depth + 1)
        return try checked(from: start) { () throws(FilterError) in try Filter.makeArithmetic(.power, base, exponent) }
    }

    mutating func unary(depth: Int) throws(FilterError) -> Filter.Expression {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        guard peek == .symbol("-") else { return try primary(depth: depth) }
        let start = index
        index += 1
        let operand = try unary(depth: depth + 1)
        return try checked(from: start) { () throws(FilterError) in try Filter.makeArithmetic(.multiply, .number(JSONNumber(-1)), operand) }
    }

    mutating func primary(depth: Int) throws(FilterError) -> Filter.Expression {
        let start = index
        let token = peek
        index += 1
        switch token {
        case .string(let text)?: return .string(text)
        case .number(let value)?: return .number(value)
        case .quoted(let name)?: return .property(name)
        case .symbol("(")?:
            let inner = try scalar(depth: depth + 1)
            try symbol(")")
            return inner
        case .word(let word)?:
            let upper = word.uppercased()
            switch upper {
            case "TRUE": return .boolean(true)
            case "FALSE": return .boolean(false)
            case "AND", "OR", "NOT", "LIKE", "IN", "BETWEEN", "IS", "NULL", "DIV":
                index -= 1
                throw error("expected a value or a property, found \(word)")
            default: break
            }
            guard peek == .symbol("(") else { return .property(word) }
            switch upper {
            case "CASEI", "ACCENTI":
                let folding = TextFolding(rawValue: upper.lowercased())!  // the two names above
                try symbol("(")
                let inner = try scalar(depth: depth + 1)
                try symbol(")")
                return try checked(from: start) { () throws(FilterError) in try Filter.makeFold(folding, inner) }
            case "DATE", "TIMESTAMP":
                try symbol("(")
                guard case .string(let text)? = peek else { throw error("expected a quoted \(upper == "DATE" ? "date" : "date-time"), found \(describe(peek))") }
                index += 1
                try symbol(")")
                guard let literal = Filter.TemporalLiteral(text, isDate: upper == "DATE") else {
                    throw error(upper == "DATE" ? "'\(text)' is not a date (2021-04-16)" : "'\(text)' is not an RFC 3339 date-time (2021-04-16T10:13:19Z)", at: start, kind: .invalid)
                }
                return .instant(literal)
            case "INTERVAL":
                try symbol("(")
                let first = try intervalEnd(depth: depth + 1)
                try symbol(",")
                let second = try intervalEnd(depth: depth + 1)
                try symbol(")")
                return .interval(first, second)
            default:
                index -= 1
                if let geometry = try geometryLiteral() { return .geometry(geometry) }
                throw error("\(word) is not a supported function (CASEI, ACCENTI, DATE, TIMESTAMP, INTERVAL, a geometry, S_*, T_*, A_*)", at: start, kind: .invalid)
            }
        default:
            index -= 1
            throw error("expected a value or a property, found \(describe(token))")
        }
    }

    /// An end of `INTERVAL(…)`: `'..'`, a date or date-time string, `DATE(…)`/`TIMESTAMP(…)`, or a property.
    mutating func intervalEnd(depth: Int) throws(FilterError) -> Filter.Expression {
        let start = index
        if case .string(let text)? = peek {
            index += 1
            if text == ".." { return .openEnd }
            guard let literal = Filter.TemporalLiteral(text, isDate: text.utf8.count == 10) else {
                throw error("'\(text)' is not '..', a date or an RFC 3339 date-time", at: start, kind: .invalid)
            }
            return .instant(literal)
        }
        let end = try primary(depth: depth)
        switch end {
        case .instant, .property: return end
        default: throw error("an interval ends at '..', a date, a date-time or a property", at: start, kind: .invalid)
        }
    }

    /// An argument of an `A_*` function: `(a, b, …)` (nested arrays too), or any value.
    mutating func arrayOrScalar(depth: Int) throws(FilterError) -> Filter.Expression {
        guard depth < Filter.maxDepth else { throw error("nests deeper than \(Filter.maxDepth) levels") }
        guard peek == .symbol("(") else { return try scalar(depth: depth) }
        index += 1
        var items: [Filter.Expression] = []
        while peek != .symbol(")") {
            if !items.isEmpty { try symbol(",") }
            items.append(try arrayOrScalar(depth: depth + 1))
        }
        index += 1
        return .array(items)
    }
}
