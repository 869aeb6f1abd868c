public import HTTPTypes
public import Hummingbird

/// `HEAD` wherever `GET` is (RFC 9110 §9.3.2): the request runs as the `GET` it stands for and
/// the answer keeps its status and header fields (`Content-Length` included) without the body.
///
/// A `HEAD` never waits: a long poll's `wait` becomes 0, and an event stream's body (which holds
/// the stream's place among its key's, the lease) is dropped unread, which gives the place back.
/// Paths the contract has without `GET` stay `HEAD` (405 with `Allow`); any `HEAD` answer, a
/// problem too, goes out without its body.
///
/// It wraps the router's responder rather than being one of its middlewares: the router picks a
/// route by method before any middleware runs, so a `HEAD` must already be a `GET` when it
/// arrives. Middlewares (logs and metrics included) see the `GET`; the context's `answersHead`
/// tells a route whose `GET` is not safe (an app's ingest by query) to leave its change out.
public struct HeadResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: HeadAwareContext {
    public typealias Context = Inner.Context
    public let inner: Inner
    public let routes: RouteTable
    /// Routes that are long polls when they carry a `wait` parameter.
    public let longPolls: Set<String>

    public init(_ inner: Inner, routes: RouteTable, longPolls: Set<String>) {
        (self.inner, self.routes, self.longPolls) = (inner, routes, longPolls)
    }

    @Sendable public func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .head else { return try await inner.respond(to: request, context: context) }
        var head = request.head
        // Unknown to the contract (the page's files): the GET the path may have.
        if routes.methods(at: request.uri.path)?.contains(.get) ?? true {
            head.method = .get
            if let template = routes.template(at: request.uri.path), longPolls.contains(template) {
                head.path = Self.withoutWait(path: request.uri.path, query: request.uri.query)
            }
        }
        var context = context
        context.answersHead = true
        let response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
        var headers = response.headers
        if headers[.contentLength] == nil, let length = response.body.contentLength { headers[.contentLength] = String(length) }
        return Response(status: response.status, headers: headers, body: ResponseBody(contentLength: nil) { writer in try await writer.finish(nil) })
    }

    /// `path?query` with a positive `wait` (seconds) set to 0; anything else, a `wait` the handler
    /// refuses included, as it was.
    static func withoutWait(path: String, query: String?) -> String {
        guard let query else { return path }
        var changed = false
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> Substring in
            guard item.hasPrefix("wait="), let seconds = Double(item.dropFirst(5)), seconds > 0 else { return item }
            changed = true
            return "wait=0"
        }
        return "\(path)?\(changed ? items.joined(separator: "&") : query)"
    }
}
