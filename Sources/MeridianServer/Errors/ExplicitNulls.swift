import Foundation
import HTTPTypes
import OpenAPIRuntime
import WireJSON

/// Top-level members a request body set to `null`, for operations where `null` means something
/// other than absent (`maxLocationAge: null` is "no limit"; absent is the default). The generated
/// types decode both to nil, so this middleware reads the body first and tells the handler.
enum ExplicitNulls {
    @TaskLocal static var current: Set<String> = []
}

struct ExplicitNullsMiddleware: ServerMiddleware {
    /// Operation id → the members whose null is meaningful.
    let members: [String: Set<String>]
    /// The most bytes read to look (the body limit middleware has already bounded bodies).
    let maxBodySize: Int

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let names = members[operationID], let body else { return try await next(request, body, metadata) }
        let bytes = try await [UInt8](collecting: body, upTo: maxBodySize)
        let members = bytes.withUnsafeBytes { JSONValueParser.parse($0)?.objectValue }
        let nulls = Set(names.filter { members?[$0] == .null })
        return try await ExplicitNulls.$current.withValue(nulls) {
            try await next(request, HTTPBody(bytes), metadata)
        }
    }
}
