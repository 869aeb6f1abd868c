import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Undoes the percent-encoding swift-openapi-runtime applies to header values
/// (apple/swift-openapi-generator#857), both ways. HTTP header values are not URI components:
/// `ETag: "3"` would go out as `%223%22` and `Location: /v1/…` as `%2Fv1%2F…`, and a request's
/// `Idempotency-Key: 50%` would reach the handler decoded (`%` alone as nothing at all).
public struct HeaderEncodingMiddleware: ServerMiddleware {
    /// The contract's response headers whose values the handlers set.
    public static let headers: [HTTPField.Name] = [.eTag, .location, .cacheControl]

    public init() {}
    /// Request headers whose values handlers read as given, so they are escaped for the runtime's
    /// decoding to restore them: If-Match and If-None-Match refuse `%` and `+` themselves, as the
    /// contract says, so they must see them (decoded, `%0x` made the condition vanish: a 200).
    public static let requestHeaders: [HTTPField.Name] = [HTTPField.Name("Idempotency-Key")!, HTTPField.Name("Last-Event-ID")!, .ifMatch, .ifNoneMatch]

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.requestHeaders {
            if let value = request.headerFields[name], value.contains(where: { $0 == "%" || $0 == "+" }) {
                request.headerFields[name] = value.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "+", with: "%2B")
            }
        }
        var (response, body) = try await next(request, body, metadata)
        for name in Self.headers {
            if let value = response.headerFields[name], value.contains("%") {
                response.headerFields[name] = value.removingPercentEncoding ?? value
            }
        }
        return (response, body)
    }
}
