public import HTTPTypes
public import OpenAPIRuntime

/// Puts the numbers no Double prints as back into the generated handlers' answers
/// (``ExactNumbers``); their requests' numbers are kept by ``JSONBodyMiddleware``.
public struct ExactNumbersMiddleware: ServerMiddleware {
    /// The most bytes an answer holding such a number is read to (answers are bounded by their pages).
    public let maxBodySize: Int

    public init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await ExactNumbers.answering({ try await next(request, body, metadata) }, maxBodySize: maxBodySize)
    }
}
