import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Undoes the percent-encoding swift-openapi-runtime applies to header values
/// (apple/swift-openapi-generator#857), both ways. HTTP header values are not URI components:
/// `ETag: "3"` would go out as `%223%22` and `Location: /v1/…` as `%2Fv1%2F…`, and a request's
/// `Idempotency-Key: 50%` would reach the handler decoded (`%` alone as nothing at all).
public struct HeaderEncodingMiddleware: ServerMiddleware {
    /// The contract's response headers whose values the handlers set.
    public static let headers: [HTTPField.Name] = [.eTag, .location, .cacheControl, HTTPField.Name("Content-Crs")!]

    public init() {}
    /// Request headers whose values handlers read as given, so they are escaped for the runtime's
    /// decoding to restore them.
    public static let requestHeaders: [HTTPField.Name] = [HTTPField.Name("Idempotency-Key")!, HTTPField.Name("Last-Event-ID")!]
    /// Conditions, whose entity tags never hold `%` (the contract's pattern): a value with one was
    /// percent-encoded by a client made with the same runtime (its `"3"` is `%223%22`) and is read
    /// decoded; one that does not decode (`1X2%0x`) reaches the handler as sent, which refuses it
    /// (the runtime's own decoding made it vanish, and the write applied unconditionally).
    public static let conditionHeaders: [HTTPField.Name] = [.ifMatch, .ifNoneMatch]

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.requestHeaders + Self.conditionHeaders {
            guard var value = request.headerFields[name], value.contains(where: { $0 == "%" || $0 == "+" }) else { continue }
            if Self.conditionHeaders.contains(name), value.contains("%"), let decoded = value.removingPercentEncoding { value = decoded }
            request.headerFields[name] = value.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "+", with: "%2B")
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
