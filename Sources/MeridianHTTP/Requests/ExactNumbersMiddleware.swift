public import HTTPTypes
public import OpenAPIRuntime
import WireJSON

/// Puts the numbers no Double prints as back into the generated handlers' answers
/// (``ExactNumbers``: the runtime's containers carry them as marks); their requests' numbers are
/// kept by ``JSONBodyMiddleware``.
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
        // Only an answer that holds marks is read whole (a stream holds none).
        let ((response, answer), marked) = try await ExactNumbers.marking { try await next(request, body, metadata) }
        guard marked, let answer else { return (response, answer) }
        var resolved = response
        let bytes = ExactNumbers.resolve(try await [UInt8](collecting: answer, upTo: maxBodySize))
        if resolved.headerFields[.contentLength] != nil { resolved.headerFields[.contentLength] = String(bytes.count) }
        return (resolved, HTTPBody(bytes))
    }
}
