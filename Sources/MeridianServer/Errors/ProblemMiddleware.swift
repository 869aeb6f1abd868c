import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Turns every error an operation throws into `application/problem+json`.
///
/// swift-openapi-runtime wraps all errors, request decoding included, in `ServerError` and
/// would answer 500; this middleware unwraps them: decoding → 400 with a pointer,
/// validation → 422, the runtime's own 4xx (missing body, wrong content type) keep their status,
/// and anything else is a logged 500 with no internals.
struct ProblemMiddleware: ServerMiddleware {
    let logger: Logger

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError {
            let problem = ProblemMapping.problem(
                for: error.underlyingError,
                fallbackStatus: error.httpStatus,
                cause: error.causeDescription,
                isBodyless: request.method == .get || request.method == .head
            )
            return respond(problem ?? internalError(error.underlyingError, operationID: operationID))
        } catch {
            return respond(ProblemMapping.problem(for: error) ?? internalError(error, operationID: operationID))
        }
    }

    private func internalError(_ error: any Error, operationID: String) -> ProblemDetails {
        logger.error("operation failed", metadata: ["operation": "\(operationID)", "error": "\(String(reflecting: error))"])
        return ProblemDetails(status: .internalServerError, detail: "the server could not complete the request")
    }

    private func respond(_ problem: ProblemDetails) -> (HTTPResponse, HTTPBody?) {
        var response = HTTPResponse(status: .init(code: problem.status))
        response.headerFields[.contentType] = ProblemDetails.mediaType
        return (response, HTTPBody(problem.encoded()))
    }
}
