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
}
