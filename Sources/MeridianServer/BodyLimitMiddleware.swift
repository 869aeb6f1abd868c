import Hummingbird
import HTTPTypes

/// Refuses request bodies over a limit with 413 before anything decodes them.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBodySize: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodySize {
            throw HTTPError(.contentTooLarge)
        }
        var request = request
        // Collecting with a limit also covers chunked bodies without a Content-Length.
        _ = try await request.collectBody(upTo: maxBodySize)
        return try await next(request, context)
    }
}
