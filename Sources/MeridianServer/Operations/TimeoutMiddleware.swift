import HTTPTypes
import Hummingbird

/// Answers 503 problem+json when a request is still unanswered after `timeout`, cancelling its
/// handler. Event streams and long polls (by route, with a `wait` parameter) are exempt: waiting is
/// their job, and their own limits bound it. A write the handler had already committed stays committed.
struct TimeoutMiddleware<Context: RequestContext>: RouterMiddleware {
    let timeout: Duration
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = RequestRecord.route(of: request, in: routes)
        if route == Paths.eventStream || (route.map(Paths.longPolls.contains) == true && request.uri.queryParameters["wait"] != nil) {
            return try await next(request, context)
        }
        let timeout = timeout
        return try await withoutActuallyEscaping(next) { next in
            // `next` runs once, in one child task, and the group returns only after both children
            // ended: it neither outlives this call nor runs concurrently with itself.
            nonisolated(unsafe) let next = next
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await next(request, context) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw ProblemError(.serviceUnavailable, detail: "the request took longer than the server's limit of \(timeout); it was stopped (a write it had committed stays)")
                }
                return response
            }
        }
    }
}
