public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Adds `Authorization: Bearer <key>` to every request (an API key made by `meridian keys create`).
public struct BearerAuthentication: ClientMiddleware {
    /// The key, `mrd_<id>_<secret>`.
    let key: String

    /// Sends `key` with every request.
    public init(key: String) { self.key = key }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}
