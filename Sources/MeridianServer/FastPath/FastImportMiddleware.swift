import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import MeridianAPI
import NIOCore

/// A fast path for `POST /v1/annotations/import`: one strict pass from bytes to ``JSONValue``
/// instead of Foundation's decoder through the runtime's free-form containers, which took most
/// of an import's time.
///
/// It reads only bodies that parse and have the FeatureCollection shape the generated decoding
/// accepts; the features then go through the same validation and store call as the generated
/// handler. Anything else goes on to that handler, which reports malformed bodies.
struct FastImportMiddleware<Context: RequestContext, Store: AnnotationStore>: RouterMiddleware {
    static var path: String { "/v1/annotations/import" }
    let store: Store

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, request.uri.path == Self.path,
              let contentType = request.headers[.contentType],
              contentType.hasPrefix("application/geo+json") || contentType.hasPrefix("application/json")
        else { return try await next(request, context) }
        var request = request
        let body = try await request.collectBody(upTo: .max)  // already bounded and buffered by BodyLimitMiddleware
        let contents = try body.withUnsafeReadableBytes { bytes throws(ProblemError) in try AnnotationImport.contents(ofBody: bytes) }
        guard let contents else { return try await next(request, context) }
        let results = try await store.importContents(contents)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: AnnotationImport.answerText(results)))
    }
}

extension AnnotationImport {
    /// The contents of an import body: the direct reader for valid bodies, else the JSON tree with
    /// every invalid feature listed (422); nil when the body is not JSON of the FeatureCollection
    /// shape, for the generated decoding to explain.
    static func contents(ofBody bytes: UnsafeRawBufferPointer) throws(ProblemError) -> [AnnotationContent]? {
        if let contents = GeoJSONFastReader.contents(bytes) { return contents }
        guard let features = JSONValueParser.parse(bytes).flatMap(features(of:)) else { return nil }
        return try contents(of: features)
    }

    /// The ImportAnswer as the generated encoder writes it (sorted keys, compact), written directly.
    static func answerText(_ results: [(id: AnnotationID, status: WriteStatus)]) -> ByteBuffer {
        let count = { (status: WriteStatus) in results.lazy.filter { $0.status == status }.count }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(80 * results.count + 64)
        buffer.writeString("{\"created\":\(count(.created)),\"results\":[")
        for (index, result) in results.enumerated() {
            if index > 0 { buffer.writeString(",") }
            buffer.writeString("{\"id\":\"\(result.id)\",\"index\":\(index),\"status\":\"\(result.status.rawValue)\"}")
        }
        buffer.writeString("],\"unchanged\":\(count(.unchanged)),\"updated\":\(count(.updated))}")
        return buffer
    }
}
