import Annotations
import WireJSON

/// CQL2 filters on the collections that are not annotations (`devices`, `regions`): the same
/// engine, reading the feature as it is served (flat properties, point or polygon geometry).
enum OGCFeatureFilter {
    /// Whether `feature` passes `filter` (no filter passes all; a feature without a geometry the
    /// engine reads matches nothing).
    static func matches(_ filter: Filter?, _ feature: [String: JSONValue]) -> Bool {
        guard let filter else { return true }
        return GeoJSONFeatureValues(feature).map { filter.matches($0) } ?? false
    }
}
