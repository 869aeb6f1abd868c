import Foundation
public import HTTPTypes
public import OpenAPIRuntime
public import WireJSON

/// Reads each JSON request body once before the generated decoding: one not in UTF-8 is 415
/// (``JSONTextEncoding``, which the decoder would read anyway, unchecked), a key repeated in one object
/// is 400 at that key (the decoder would silently keep one of the values), so is a `null` the
/// contract does not allow (the decoder would read it as absent). Where a null means something
/// (a merge patch's removal), the contract's type (a `typeOverrides` type in `MeridianAPI`) keeps it.
/// The handler runs with the body in ``RequestJSON``, so free JSON keeps its exact numbers.
public struct JSONBodyMiddleware: ServerMiddleware {
    /// Operation id → where its body may hold null (``Contract/requestNulls``).
    public let nullShapes: [String: NullShape]
    /// The most bytes read (the body limit middleware has already bounded bodies).
    public let maxBodySize: Int

    public init(nullShapes: [String: NullShape], maxBodySize: Int) {
        (self.nullShapes, self.maxBodySize) = (nullShapes, maxBodySize)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let body, Self.isJSON(request.headerFields[.contentType]) else { return try await next(request, body, metadata) }
        let bytes = try await [UInt8](collecting: body, upTo: maxBodySize)
        if let refusal = bytes.withUnsafeBytes({ JSONTextEncoding.refusal(contentType: request.headerFields[.contentType], body: $0) }) {
            throw refusal
        }
        switch bytes.withUnsafeBytes({ JSONBodyCheck.first(in: $0, nulls: nullShapes[operationID]) }) {
        case .repeatedKey(let path)?:
            let pointer = JSONPointer.make(path)
            throw ProblemError(.badRequest, detail: "\(pointer) appears twice in one object; each key may appear only once",
                               errors: [.init(pointer: pointer, detail: "appears twice in one object")])
        case .null(let path)?:
            let pointer = JSONPointer.make(path)
            throw ProblemError(.badRequest, detail: "\(pointer) may not be null; leave it out instead",
                               errors: [.init(pointer: pointer, detail: "may not be null")])
        case nil:
            break
        }
        // The decoder reads the body with stand-ins for what it refuses; free JSON is read exactly from here.
        let json = RequestJSON(bytes)
        return try await RequestJSON.$current.withValue(json) { try await next(request, HTTPBody(json.decodable), metadata) }
    }

    /// `application/json` and its `+json` relatives (merge patch, GeoJSON).
    public static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type.hasSuffix("+json")
    }
}
