import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Where the client reached the server (`http://127.0.0.1:8080`), for the answers that must name
/// absolute URLs (TileJSON's `tiles`): the request's `Host` and, behind a proxy that terminates
/// TLS, its `X-Forwarded-Proto`. Set only for the operations that read it.
enum RequestOrigin {
    @TaskLocal static var current: String?

    /// The origin of `request`, or nil when it names no host.
    static func of(_ request: HTTPRequest) -> String? {
        guard let authority = request.authority, !authority.isEmpty else { return nil }
        let proto = request.headerFields[HTTPField.Name("X-Forwarded-Proto")!]?.split(separator: ",").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        return (proto == "https" ? "https" : "http") + "://" + authority
    }

    /// `path` as an absolute URL when the origin is known, else as it is.
    static func absolute(_ path: String) -> String {
        (current ?? "") + path
    }

    /// Sets ``current`` for `operations`.
    struct Middleware: ServerMiddleware {
        let operations: Set<String>

        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            guard operations.contains(operationID) else { return try await next(request, body, metadata) }
            return try await RequestOrigin.$current.withValue(RequestOrigin.of(request)) { try await next(request, body, metadata) }
        }
    }
}
