import MapGeometry

/// The checks both readers make once a construct is read, so CQL2-Text and CQL2-JSON refuse the
/// same filters. Paths are relative to the construct's `args` (`["args", "1"]`); the text reader
/// reports its position instead.
extension Filter {
    /// What an expression is known to hold before any feature is read (nil: a free property).
    enum StaticType: String, Hashable { case string, number, boolean, instant, interval, array, geometry }

    static func invalid(_ path: [String], _ message: String) -> FilterError { FilterError(.invalid, FieldError(path: path, message: message)) }

    static func makeComparison(_ op: Comparison, _ a: Expression, _ b: Expression) throws(FilterError) -> Filter {
        for (index, side) in [a, b].enumerated() { try scalarOperand(side, at: ["args", String(index)]) }
        try compatible(a, b, at: ["args", "1"])
        return .comparison(op, a, b)
    }

    static func makeLike(_ subject: Expression, _ pattern: Expression) throws(FilterError) -> Filter {
        try scalarOperand(subject, at: ["args", "0"])
        if let type = subject.staticType, type != .string { throw invalid(["args", "0"], "like needs text, and this is a \(type.rawValue)") }
        guard let operand = LikeOperand(pattern) else { throw invalid(["args", "1"], "must be a pattern string, possibly in CASEI or ACCENTI") }
        guard operand.pattern.length <= LikePattern.maxLength else {
            throw invalid(["args", "1"], "a like pattern has at most \(LikePattern.maxLength) characters, got \(operand.pattern.length)")
        }
        return .like(subject, pattern: operand)
    }

    static func makeIn(_ subject: Expression, _ list: [Expression]) throws(FilterError) -> Filter {
        guard !list.isEmpty else { throw invalid(["args", "1"], "must be a non-empty list of values") }
        try scalarOperand(subject, at: ["args", "0"])
        for (index, item) in list.enumerated() {
            try scalarOperand(item, at: ["args", "1", String(index)])
            try compatible(subject, item, at: ["args", "1", String(index)])
        }
        return .in(subject, list)
    }

    static func makeBetween(_ value: Expression, _ low: Expression, _ high: Expression) throws(FilterError) -> Filter {
        for (index, side) in [value, low, high].enumerated() { try scalarOperand(side, at: ["args", String(index)]) }
        try compatible(value, low, at: ["args", "1"])
        try compatible(value, high, at: ["args", "2"])
        return .between(value, low, high)
    }

    static func makeSpatial(_ predicate: SpatialPredicate, _ a: Expression, _ b: Expression) throws(FilterError) -> Filter {
        for (index, side) in [a, b].enumerated() where side.staticType != .geometry {
            throw invalid(["args", String(index)], "\(predicate.rawValue.uppercased()) takes the property geometry or a geometry literal")
        }
        return .spatial(predicate, a, b)
    }

    static func makeTemporal(_ predicate: TemporalPredicate, _ a: Expression, _ b: Expression) throws(FilterError) -> Filter {
        for (index, side) in [a, b].enumerated() {
            switch side.staticType {
            case .instant?, .interval?, nil where side.isProperty: continue
            default: throw invalid(["args", String(index)], "\(predicate.rawValue.uppercased()) takes instants (DATE, TIMESTAMP, a property) or intervals")
            }
        }
        return .temporal(predicate, a, b)
    }

    static func makeArray(_ predicate: ArrayPredicate, _ a: Expression, _ b: Expression) throws(FilterError) -> Filter {
        for (index, side) in [a, b].enumerated() {
            switch side.staticType {
            case .array?, nil where side.isProperty: continue
            default: throw invalid(["args", String(index)], "\(predicate.rawValue.uppercased()) takes arrays or properties")
            }
        }
        return .array(predicate, a, b)
    }

    static func makeArithmetic(_ op: ArithmeticOperator, _ a: Expression, _ b: Expression) throws(FilterError) -> Expression {
        for (index, side) in [a, b].enumerated() {
            try scalarOperand(side, at: ["args", String(index)])
            if let type = side.staticType, type != .number { throw invalid(["args", String(index)], "\(op.rawValue) takes numbers, and this is a \(type.rawValue)") }
        }
        return .arithmetic(op, a, b)
    }

    static func makeFold(_ folding: TextFolding, _ inner: Expression) throws(FilterError) -> Expression {
        try scalarOperand(inner, at: ["args", "0"])
        if let type = inner.staticType, type != .string { throw invalid(["args", "0"], "\(folding.rawValue.uppercased()) takes text, and this is a \(type.rawValue)") }
        return Filter.folding(folding, inner)
    }

    /// Refuses what cannot be compared: geometries, intervals and arrays.
    static func scalarOperand(_ expression: Expression, at path: [String]) throws(FilterError) {
        switch expression.staticType {
        case .geometry?: throw invalid(path, "geometry can only be used in spatial functions (S_INTERSECTS, S_WITHIN, …)")
        case .interval?, .array?: throw invalid(path, "intervals and arrays can only be used in T_* and A_* functions")
        default: if case .openEnd = expression { throw invalid(path, "'..' can only end an interval") }
        }
    }

    /// Refuses two sides of different known types (`displayPriority` with a string). A string
    /// literal may meet an instant: it is read as one.
    static func compatible(_ a: Expression, _ b: Expression, at path: [String]) throws(FilterError) {
        guard let x = a.staticType, let y = b.staticType, x != y else { return }
        if (x, y) == (.instant, .string) && !b.isProperty || (x, y) == (.string, .instant) && !a.isProperty { return }
        throw invalid(path, "a \(x.rawValue) cannot be compared with a \(y.rawValue)")
    }
}

extension Filter.Expression {
    var isProperty: Bool { if case .property = self { return true } else { return false } }

    var staticType: Filter.StaticType? {
        switch self {
        case .property(let name):
            switch Filter.fields[name] {
            case .string?: return .string
            case .number?: return .number
            case .timestamp?: return .instant
            case .geometry?: return .geometry
            case nil: return nil
            }
        case .string, .fold, .folded: return .string
        case .number, .arithmetic: return .number
        case .boolean: return .boolean
        case .instant: return .instant
        case .interval: return .interval
        case .openEnd: return nil
        case .array: return .array
        case .geometry: return .geometry
        }
    }
}
