public import MapGeometry

extension Filter {
    /// A box every matching point lies in, when the filter requires one (a spatial predicate
    /// between `geometry` and a literal that must hold, alone or in an `and`; any but
    /// `s_disjoint`, which holds away from the literal); nil when matches may lie anywhere.
    /// Stores use it to read only that box before evaluating the filter on each annotation.
    public var requiredBounds: BoundingBox? {
        switch self {
        case .spatial(let predicate, _, _) where predicate != .disjoint:
            // Every other predicate holds only where the point meets the literal: inside its box.
            return pointTest?.literal.bounds
        case .and(let filters):
            return filters.lazy.compactMap(\.requiredBounds).first
        default:
            return nil
        }
    }

    /// False only when no point feature at `coordinate` can match: a spatial predicate that must
    /// hold (alone, in an `and`, or in every branch of an `or`) fails there. An index's first
    /// cut, before rows are read and the whole filter decides; the whole answer when
    /// ``readsOnlyThePoint``.
    public func admits(_ coordinate: Coordinate) -> Bool {
        switch self {
        case .spatial(let predicate, _, _):
            guard let test = pointTest else { return true }
            let point = FilterGeometry.point(coordinate)
            return (test.pointFirst ? Self.holds(predicate, point, test.literal) : Self.holds(predicate, test.literal, point)) ?? true
        case .and(let filters):
            return filters.allSatisfy { $0.admits(coordinate) }
        case .or(let filters):
            return filters.contains { $0.admits(coordinate) }
        case .not(let filter):
            // Only a filter decided by the point alone can be negated without the row.
            return filter.readsOnlyThePoint ? !filter.admits(coordinate) : true
        case .literal(let value):
            return value
        default:
            return true
        }
    }

    /// Whether the filter reads nothing but the feature's point (spatial predicates between
    /// `geometry` and a literal, and literals, combined): then ``admits(_:)`` is exactly
    /// ``matches(_:)`` (a point is never unknown).
    public var readsOnlyThePoint: Bool {
        switch self {
        case .spatial: return pointTest != nil
        case .literal: return true
        case .and(let filters), .or(let filters): return filters.allSatisfy(\.readsOnlyThePoint)
        case .not(let filter): return filter.readsOnlyThePoint
        default: return false
        }
    }

    /// For a spatial predicate between `geometry` and a literal: the literal, and whether `geometry` comes first.
    private var pointTest: (literal: FilterGeometry, pointFirst: Bool)? {
        switch self {
        case .spatial(_, .property(Self.geometryProperty), .geometry(let literal)): return (literal, true)
        case .spatial(_, .geometry(let literal), .property(Self.geometryProperty)): return (literal, false)
        default: return nil
        }
    }
}
