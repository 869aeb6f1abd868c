import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Undoes the percent-encoding swift-openapi-runtime applies to response header values
/// (apple/swift-openapi-generator#857): `ETag: "3"` would go out as `%223%22` and
/// `Location: /v1/…` as `%2Fv1%2F…`. HTTP header values are not URI components.
struct HeaderEncodingMiddleware: ServerMiddleware {
    /// The contract's response headers whose values the handlers set.
    static let headers: [HTTPField.Name] = [.eTag, .location]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, body) = try await next(request, body, metadata)
        for name in Self.headers {
            if let value = response.headerFields[name], value.contains("%") {
                response.headerFields[name] = value.removingPercentEncoding ?? value
            }
        }
        return (response, body)
    }
}
