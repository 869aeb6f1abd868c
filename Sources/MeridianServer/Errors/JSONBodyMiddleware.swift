import Foundation
import HTTPTypes
import OpenAPIRuntime
import WireJSON

/// Top-level members a request body set to `null`, for operations where `null` means something
/// other than absent (`maxLocationAge: null` is "no limit"; absent is the default). The generated
/// types decode both to nil, so ``JSONBodyMiddleware`` reads the body first and tells the handler.
enum ExplicitNulls {
    @TaskLocal static var current: Set<String> = []
}

/// Reads each JSON request body once before the generated decoding: a key repeated in one object
/// is 400 at that key (the decoder would silently keep one of the values), and members whose
/// `null` means something are noted in ``ExplicitNulls``.
struct JSONBodyMiddleware: ServerMiddleware {
    /// Operation id → the members whose null is meaningful.
    let explicitNulls: [String: Set<String>]
    /// The most bytes read (the body limit middleware has already bounded bodies).
    let maxBodySize: Int

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let body, Self.isJSON(request.headerFields[.contentType]) else { return try await next(request, body, metadata) }
        let bytes = try await [UInt8](collecting: body, upTo: maxBodySize)
        if let path = bytes.withUnsafeBytes(RepeatedKeys.first(in:)) {
            let pointer = JSONPointer.make(path)
            throw ProblemError(.badRequest, detail: "\(pointer) appears twice in one object; each key may appear only once",
                               errors: [.init(pointer: pointer, detail: "appears twice in one object")])
        }
        guard let names = explicitNulls[operationID] else { return try await next(request, HTTPBody(bytes), metadata) }
        let members = bytes.withUnsafeBytes { JSONValueParser.parse($0)?.objectValue }
        let nulls = Set(names.filter { members?[$0] == .null })
        return try await ExplicitNulls.$current.withValue(nulls) {
            try await next(request, HTTPBody(bytes), metadata)
        }
    }

    /// `application/json` and its `+json` relatives (merge patch, GeoJSON).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type.hasSuffix("+json")
    }
}
