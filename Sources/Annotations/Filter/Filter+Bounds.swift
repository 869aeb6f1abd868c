public import MapGeometry

extension Filter {
    /// A box every matching annotation lies in, when the filter requires one (a spatial predicate
    /// that must hold, alone or in an `and`); nil when matches may lie anywhere. Stores use it to
    /// read only that box before evaluating the filter on each annotation.
    public var requiredBounds: BoundingBox? {
        switch self {
        case .spatial(_, let geometry, _):
            // Every predicate holds only where the point touches the geometry: inside its box.
            return geometry.bounds
        case .and(let filters):
            return filters.lazy.compactMap(\.requiredBounds).first
        default:
            return nil
        }
    }

    /// False only when no annotation at `coordinate` can match: a spatial predicate that must hold
    /// (alone, in an `and`, or in every branch of an `or`) fails there. An index's first cut, before
    /// rows are read and the whole filter decides; the whole answer when ``readsOnlyThePoint``.
    public func admits(_ coordinate: Coordinate) -> Bool {
        switch self {
        case .spatial(let predicate, let geometry, let pointFirst):
            return Self.holds(predicate, geometry, pointFirst: pointFirst, at: coordinate)
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

    /// Whether the filter reads nothing but the annotation's point (spatial predicates and
    /// literals, combined): then ``admits(_:)`` is exactly ``matches(_:)`` (a point is never unknown).
    public var readsOnlyThePoint: Bool {
        switch self {
        case .spatial, .literal: return true
        case .and(let filters), .or(let filters): return filters.allSatisfy(\.readsOnlyThePoint)
        case .not(let filter): return filter.readsOnlyThePoint
        default: return false
        }
    }
}
