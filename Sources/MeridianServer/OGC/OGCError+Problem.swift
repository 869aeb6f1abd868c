import HTTPTypes
import MeridianHTTP

extension OGCError {
    /// The problem a client gets: 404 for what is not there, 405 for a write to a read-only collection.
    var problem: ProblemDetails {
        switch self {
        case .noCollection(let id):
            return ProblemDetails(status: .notFound, detail: "there is no collection \"\(id)\" (see /ogc/collections)")
        case .noFeature(let id):
            return ProblemDetails(status: .notFound, detail: "the collection has no feature \"\(id)\"")
        case .noPage(let cursor):
            return ProblemDetails(status: .notFound, detail: "the cursor \"\(cursor)\" names no page of this collection (follow the next links)")
        case .readOnly(let id):
            return ProblemDetails(status: .methodNotAllowed, detail: "the collection \"\(id)\" takes no writes (only annotations does)",
                                  allow: RouteTable.allowHeader([.get, .options]))
        }
    }
}
