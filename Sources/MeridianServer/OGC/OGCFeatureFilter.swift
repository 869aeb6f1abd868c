import Annotations
import HTTPTypes
import MeridianHTTP
import WireJSON

/// CQL2 filters on the collections that are not annotations (`devices`, `regions`).
enum OGCFeatureFilter {
    /// Whether `feature` passes `filter` (no filter passes all).
    /// - Throws: 400 naming `filter` while the CQL2 engine evaluates annotations only.
    static func matches(_ filter: Filter?, _ feature: [String: JSONValue]) throws(ProblemError) -> Bool {
        guard filter != nil else { return true }
        throw ProblemError(.badRequest, detail: "filter is not evaluated on this collection yet",
                           errors: [.init(parameter: "filter", detail: "is evaluated on annotations only, until the CQL2 engine reads any feature")])
    }
}
