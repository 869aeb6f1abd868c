public import HTTPTypes
public import OpenAPIRuntime

/// Sends the contract's JSON form with its members in the YAML's order (``Contract/jsonText``): the
/// generated handlers encode JSON with sorted keys, which reorders the document (paths, responses,
/// properties), and clients generated from `/openapi.json` would then differ from those generated
/// from `/openapi.yaml`. The handlers still choose the representation; this only replaces the text
/// of a 200 JSON answer of the contract's operations with the same document in order.
public struct OrderedContractMiddleware: ServerMiddleware {
    private let json: [UInt8]
    private let operations: Set<String>

    /// Answers `operations`' JSON with `json`, the contract as JSON in the YAML's order.
    public init(json: [UInt8], operations: Set<String>) {
        (self.json, self.operations) = (json, operations)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, body) = try await next(request, body, metadata)
        guard operations.contains(operationID), response.status == .ok,
              response.headerFields[.contentType]?.hasPrefix("application/json") == true else { return (response, body) }
        if response.headerFields[.contentLength] != nil { response.headerFields[.contentLength] = String(json.count) }
        body = HTTPBody(json)
        return (response, body)
    }
}
