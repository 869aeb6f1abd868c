import Foundation
public import Hummingbird
public import HTTPTypes
public import Logging
public import NIOCore

/// problem+json for errors outside the contract's operations: unknown paths (404), bodies over
/// the limit (413) and any other `HTTPResponseError` Hummingbird raises.
public struct ProblemRouterMiddleware<Context: RequestContext>: RouterMiddleware {
    public let logger: Logger
    /// The application's errors, named.
    public let problems: ProblemMap

    public init(logger: Logger, problems: @escaping ProblemMap) {
        (self.logger, self.problems) = (logger, problems)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let detail: String? = switch error.status {
            case .notFound: "no resource at \(request.uri.path)"
            case .contentTooLarge: "the request body is larger than the server accepts"
            default: (error as? HTTPError)?.body
            }
            return Self.response(ProblemDetails(status: error.status, detail: detail))
        } catch {
            if let problem = problems(error, nil, nil, false) { return Self.response(problem) }
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
            return Self.response(ProblemDetails(status: .internalServerError, detail: "the server could not complete the request"))
        }
    }

    public static func response(_ problem: ProblemDetails) -> Response {
        var headers: HTTPFields = [.contentType: ProblemDetails.mediaType]
        headers[.retryAfter] = problem.retryAfter.map(String.init)
        headers[.allow] = problem.allow
        return Response(status: .init(code: problem.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: problem.encoded())))
    }
}
