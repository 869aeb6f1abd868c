import Foundation
import MapGeometry
import Geodesy
import WireJSON

extension Filter.Expression {
    /// The value of this expression for `feature`: nil when it is null or unknown (a missing
    /// property, arithmetic on a non-number, a division by zero).
    func value(in feature: some CQL2Feature) -> Filter.Value? {
        switch self {
        case .property(let name): return feature.cql2Value(of: name)
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .boolean(let flag): return .boolean(flag)
        case .instant(let literal): return .instant(literal.microseconds, isDate: literal.isDate)
        case .openEnd: return nil
        case .geometry(let geometry): return .geometry(geometry)
        case .folded(let literal): return .string(literal.text)
        case .array(let items): return .array(items.map { $0.value(in: feature) })
        case .fold(let outer, .fold(let folding, let inner)):
            // ACCENTI(CASEI(x)) or the other way round: one pass for ASCII.
            guard case .string(let text)? = inner.value(in: feature) else { return nil }
            return .string(TextFolding.apply([folding, outer], text))
        case .fold(let folding, let inner):
            guard case .string(let text)? = inner.value(in: feature) else { return nil }
            return .string(folding.apply(text))
        case .interval(let start, let end):
            guard let start = Self.end(start, in: feature), let end = Self.end(end, in: feature) else { return nil }
            return .interval(start.bound, end.bound)
        case .arithmetic(let op, let left, let right):
            guard case .number(let a)? = left.value(in: feature), case .number(let b)? = right.value(in: feature),
                  let result = op.apply(a.double, b.double), result.isFinite
            else { return nil }
            return .number(JSONNumber(result))
        }
    }

    /// An end of an interval: `bound` nil when open; nil when unknown (a null or unreadable property).
    private static func end(_ end: Filter.Expression, in feature: some CQL2Feature) -> (bound: Int64?, Void)? {
        if case .openEnd = end { return (nil, ()) }
        switch end.value(in: feature) {
        case .instant(let t, _)?: return (t, ())
        case .string(let text)? where text == "..": return (nil, ())
        case .string(let text)?:
            guard case .instant(let t, _)? = Filter.instant(text, isDate: text.utf8.count == 10) else { return nil }
            return (t, ())
        default: return nil
        }
    }
}

extension Filter.ArithmeticOperator {
    /// `a op b` in doubles (exact for integers up to 2^53); `div` truncates toward zero, `%`
    /// keeps the dividend's sign; nil when dividing by zero.
    func apply(_ a: Double, _ b: Double) -> Double? {
        switch self {
        case .add: return a + b
        case .subtract: return a - b
        case .multiply: return a * b
        case .divide: return b == 0 ? nil : a / b
        case .remainder: return b == 0 ? nil : a.truncatingRemainder(dividingBy: b)
        case .integerDivide: return b == 0 ? nil : (a / b).rounded(.towardZero)
        case .power: return Foundation.pow(a, b)
        }
    }
}

extension Filter {
    /// Whether a spatial predicate holds between two geometry expressions for `feature`; nil
    /// when either is not a geometry. A point against any geometry but a collection is decided
    /// here, from where the point lies; everything else by GEOS.
    static func holds(_ predicate: SpatialPredicate, _ left: Expression, _ right: Expression, for feature: some CQL2Feature) -> Bool? {
        guard let a = geometry(left, of: feature), let b = geometry(right, of: feature) else { return nil }
        return holds(predicate, a, b)
    }

    static func geometry(_ expression: Expression, of feature: some CQL2Feature) -> FilterGeometry? {
        switch expression {
        case .geometry(let geometry): return geometry
        case .property(Filter.geometryProperty): return feature.cql2Geometry
        default:
            guard case .geometry(let geometry)? = expression.value(in: feature) else { return nil }
            return geometry
        }
    }

    static func holds(_ predicate: SpatialPredicate, _ a: FilterGeometry, _ b: FilterGeometry) -> Bool? {
        if case .point(let point) = a, let location = b.locate(point) {
            return pointHolds(predicate, point, location, b, pointFirst: true)
        }
        if case .point(let point) = b, let location = a.locate(point) {
            return pointHolds(predicate, point, location, a, pointFirst: false)
        }
        return try? a.planar.holds(predicate.relation, b.planar)
    }

    /// A predicate between a point and a geometry, from where the point lies (DE-9IM with a
    /// point: its interior is itself, its boundary empty).
    private static func pointHolds(_ predicate: SpatialPredicate, _ point: Coordinate, _ location: FilterGeometry.Location, _ other: FilterGeometry, pointFirst: Bool) -> Bool {
        // Only points can lie within a point: the other geometry is that point, perhaps repeated.
        let onlyThePoint = other.points.map { !$0.isEmpty && $0.allSatisfy { $0 == point } } ?? false
        switch (predicate, pointFirst) {
        case (.intersects, _): return location != .exterior
        case (.disjoint, _): return location == .exterior
        case (.touches, _): return location == .boundary
        case (.equals, _): return onlyThePoint
        case (.within, true), (.contains, false): return location == .interior
        case (.within, false), (.contains, true): return onlyThePoint
        // A point has nothing outside a geometry it meets, so it neither overlaps nor crosses.
        case (.overlaps, _), (.crosses, _): return false
        }
    }
}

extension Filter.SpatialPredicate {
    var relation: PlanarGeometry.Relation {
        switch self {
        case .intersects: .intersects
        case .equals: .equals
        case .disjoint: .disjoint
        case .touches: .touches
        case .within: .within
        case .overlaps: .overlaps
        case .crosses: .crosses
        case .contains: .contains
        }
    }
}
