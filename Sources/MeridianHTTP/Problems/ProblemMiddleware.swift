import Foundation
public import HTTPTypes
public import Logging
public import OpenAPIRuntime

/// Turns every error an operation throws into `application/problem+json`.
///
/// swift-openapi-runtime wraps all errors, request decoding included, in `ServerError` and
/// would answer 500; this middleware unwraps them: decoding → 400 with a pointer,
/// validation → 422, the runtime's own 4xx (missing body, wrong content type) keep their status,
/// and anything else is a logged 500 with no internals.
public struct ProblemMiddleware: ServerMiddleware {
    public let logger: Logger
    /// Per operation id, the declared type of each parameter (``Contract/parameterTypes``).
    public let parameterTypes: [String: [String: String]]
    /// Per operation id, the values of each query or header parameter with an enum (``Contract/parameterEnums``).
    public let parameterEnums: [String: [String: [String]]]
    /// The application's errors, named.
    public let problems: ProblemMap

    public init(logger: Logger, contract: Contract, problems: @escaping ProblemMap) {
        (self.logger, self.parameterTypes, self.parameterEnums, self.problems) = (logger, contract.parameterTypes, contract.parameterEnums, problems)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError {
            // The runtime's parameter decoding errors carry no name; the contract's types find it.
            if error.underlyingError is DecodingError,
               let (name, value, type) = Self.malformedParameter(request, metadata, types: parameterTypes[operationID] ?? [:]) {
                let detail = "must be \(type == "integer" ? "an integer" : type == "number" ? "a finite number" : "true or false"), got \"\(value)\""
                return respond(ProblemDetails(status: .badRequest, detail: "\(name) \(detail)", errors: [.init(parameter: name, detail: detail)]))
            }
            if error.underlyingError is DecodingError,
               let (name, value, values) = Self.unlistedValue(request, enums: parameterEnums[operationID] ?? [:]) {
                let detail = "must be one of \(values.joined(separator: ", ")), got \"\(value)\""
                return respond(ProblemDetails(status: .badRequest, detail: "\(name) \(detail)", errors: [.init(parameter: name, detail: detail)]))
            }
            let problem = problems(
                error.underlyingError, error.httpStatus, error.causeDescription, request.method == .get || request.method == .head
            )
            return respond(problem ?? internalError(error.underlyingError, operationID: operationID))
        } catch {
            return respond(problems(error, nil, nil, false) ?? internalError(error, operationID: operationID))
        }
    }

    /// The first query or path parameter whose value is not of its declared scalar type.
    public static func malformedParameter(
        _ request: HTTPRequest, _ metadata: ServerRequestMetadata, types: [String: String]
    ) -> (name: String, value: String, type: String)? {
        let items = queryItems(request) + metadata.pathParameters.map { ($0.key, String($0.value).removingPercentEncoding ?? String($0.value)) }
        for (name, value) in items {
            switch types[name] {
            case "integer" where Int64(value) == nil, "number" where !(Double(value)?.isFinite ?? false),
                 "boolean" where value != "true" && value != "false":
                return (name, value, types[name] ?? "")
            default: continue
            }
        }
        return nil
    }

    /// The first query or header parameter whose value its enum does not list.
    public static func unlistedValue(_ request: HTTPRequest, enums: [String: [String]]) -> (name: String, value: String, values: [String])? {
        let headers = request.headerFields.map { ($0.name.canonicalName, $0.value) }
        for (name, value) in queryItems(request) + headers {
            if let values = enums[name] ?? enums.first(where: { $0.key.lowercased() == name })?.value, !values.contains(value) {
                return (name, value, values)
            }
        }
        return nil
    }

    /// The query's items, percent-decoded (`+` is a space).
    private static func queryItems(_ request: HTTPRequest) -> [(String, String)] {
        let query = request.path?.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        return query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring?) -> String {
                let plain = String(text ?? "").replacingOccurrences(of: "+", with: " ")
                return plain.removingPercentEncoding ?? plain
            }
            return (decoded(parts.first), decoded(parts.dropFirst().first))
        }
    }

    private func internalError(_ error: any Error, operationID: String) -> ProblemDetails {
        logger.error("operation failed", metadata: ["operation": "\(operationID)", "error": "\(String(reflecting: error))"])
        return ProblemDetails(status: .internalServerError, detail: "the server could not complete the request")
    }

    private func respond(_ problem: ProblemDetails) -> (HTTPResponse, HTTPBody?) {
        var response = HTTPResponse(status: .init(code: problem.status))
        response.headerFields[.contentType] = ProblemDetails.mediaType
        response.headerFields[.retryAfter] = problem.retryAfter.map(String.init)
        response.headerFields[.allow] = problem.allow
        return (response, HTTPBody(problem.encoded()))
    }
}
