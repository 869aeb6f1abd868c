public import Hummingbird
public import HTTPTypes

/// Refuses request bodies over a limit with 413 before anything decodes them.
public struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The limit of every path not in `largeBodies`.
    public let maxBodySize: Int
    /// Path templates with their own, larger limit (bulk imports).
    public var largeBodies: [String: Int] = [:]
    public let routes: RouteTable

    public init(maxBodySize: Int, largeBodies: [String: Int] = [:], routes: RouteTable) {
        (self.maxBodySize, self.largeBodies, self.routes) = (maxBodySize, largeBodies, routes)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let maxBodySize = RequestRecord.route(of: request, in: routes).flatMap { largeBodies[$0] } ?? maxBodySize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodySize {
            throw HTTPError(.contentTooLarge)
        }
        var request = request
        // Collecting with a limit also covers chunked bodies without a Content-Length.
        _ = try await request.collectBody(upTo: maxBodySize)
        return try await next(request, context)
    }
}
