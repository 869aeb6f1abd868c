import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore

/// problem+json for errors outside the contract's operations: unknown paths (404), bodies over
/// the limit (413) and any other `HTTPResponseError` Hummingbird raises.
struct ProblemRouterMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
            if let problem = ProblemMapping.problem(for: error) { return Self.response(problem) }
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
            return Self.response(ProblemDetails(status: .internalServerError, detail: "the server could not complete the request"))
        }
    }

    static func response(_ problem: ProblemDetails) -> Response {
        var headers: HTTPFields = [.contentType: ProblemDetails.mediaType]
        headers[.retryAfter] = problem.retryAfter.map(String.init)
        return Response(status: .init(code: problem.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: problem.encoded())))
    }
}
