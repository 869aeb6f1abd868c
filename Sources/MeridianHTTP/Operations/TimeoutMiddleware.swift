public import HTTPTypes
public import Hummingbird
public import Logging
import Synchronization
public import Timeline

/// Stops a request's handler when its client hangs up, and answers 503 problem+json when it is
/// still unanswered after `timeout`, cancelling the handler. Event streams and long polls (by
/// route, with a `wait` parameter) have no time limit here: waiting is their job, and their own
/// limits bound it. A write the handler had already committed stays committed.
public struct TimeoutMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext
    public let timeout: Duration
    public let routes: RouteTable
    public let connections: ConnectionTable
    /// Routes that stream (no limit here).
    public let streams: Set<String>
    /// Routes that are long polls when they carry a `wait` parameter (no limit here then).
    public let longPolls: Set<String>

    /// The requests' time limits, run from one task (not a timer task per request).
    private let limits: DelayQueue

    public init(timeout: Duration, routes: RouteTable, connections: ConnectionTable, streams: Set<String>, longPolls: Set<String>) {
        (self.timeout, self.routes, self.connections, self.streams, self.longPolls) = (timeout, routes, connections, streams, longPolls)
        limits = DelayQueue(delay: timeout)
    }
    /// nginx's status for a request whose client left first (logs and metrics only: nobody reads it).
    public static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = RequestRecord.route(of: request, in: routes)
        let exempt = route.map(streams.contains) == true || (route.map(longPolls.contains) == true && request.uri.queryParameters["wait"] != nil)
        let hangUp = connections.hangUpSignal(of: context.channel)
        // A handler that ignores its cancellation holds the answer back: it is named in the log.
        let ended = EndFlag()
        defer { ended.value.store(true, ordering: .relaxed) }
        return try await withoutActuallyEscaping(next) { next in
            // `next` runs once, in one child task, and the group returns only after it ended: it
            // neither outlives this call nor runs concurrently with itself.
            nonisolated(unsafe) let next = next
            return try await withThrowingTaskGroup(of: Void.self) { group in
                // The handler's answer, or nil when the limit or the client's hang-up came first.
                let first = ResumeOnce<Response?>()
                group.addTask {
                    do { first.finish(.success(try await next(request, context))) } catch { first.finish(.failure(error)) }
                }
                let limit = exempt ? nil : limits.schedule { first.finish(.success(nil)) }
                let hungUp = hangUp?.onAdvance(after: 0) { first.finish(.success(nil)) }
                defer {
                    if let limit { limits.cancel(limit) }
                    if let hungUp { hangUp?.cancel(hungUp) }
                    group.cancelAll()
                }
                guard let response = try await withCheckedThrowingContinuation({ first.start($0) }) else {
                    Self.watch(ended, route: route ?? request.uri.path, logger: context.logger)
                    if let hangUp, hangUp.latest > 0 {
                        throw ProblemError(Self.clientClosedRequest, detail: "the client closed the connection before the answer; the request was stopped (a write it had committed stays)")
                    }
                    throw ProblemError(ProblemDetails(
                        status: .serviceUnavailable, detail: "the request took longer than the server's limit of \(timeout); it was stopped (a write it had committed stays)",
                        retryAfter: 1))
                }
                return response
            }
        }
    }

    /// How long a stopped handler may take to end before it is logged as stuck.
    public static let stuckAfter = Duration.seconds(5)

    /// Logs `route` as stuck when `ended` is still false after ``stuckAfter``.
    private static func watch(_ ended: EndFlag, route: String, logger: Logger) {
        Task {
            try? await Task.sleep(for: stuckAfter)
            if !ended.value.load(ordering: .relaxed) {
                logger.error("a stopped request is still running \(stuckAfter) later: its handler ignores cancellation", metadata: ["route": "\(route)"])
            }
        }
    }
}

/// Whether a request's handler has ended.
private final class EndFlag: Sendable {
    public let value = Atomic(false)
}
