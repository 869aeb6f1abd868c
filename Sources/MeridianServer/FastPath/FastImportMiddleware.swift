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
    /// The contract's media types for the body; anything else is the generated handler's (415).
    static var mediaTypes: Set<String> { ["application/geo+json", "application/json"] }
    let store: Store

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, request.uri.path == Self.path,
              let contentType = request.headers[.contentType],
              Self.mediaTypes.contains(contentType.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased())
        else { return try await next(request, context) }
        var request = request
        let body = try await request.collectBody(upTo: .max)  // already bounded and buffered by BodyLimitMiddleware
        guard let results = try await AnnotationImport.importBody(Data(body.readableBytesView), into: store) else {
            return try await next(request, context)  // not a FeatureCollection: the generated decoding explains
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: AnnotationImport.answerText(results)))
    }
}

extension AnnotationImport {
    /// Ends an import the direct reader declined; its transaction rolls back.
    struct Declined: Error {}

    /// Imports a GeoJSON body. The direct reader and the transaction run at once, the transaction
    /// taking chunks while the reader parses the rest. When the reader declines, nothing was
    /// written, and the JSON tree lists every invalid feature (422). Nil when the body is not JSON
    /// of the FeatureCollection shape, for the generated decoding (or Foundation's) to explain.
    static func importBody(_ body: Data, into store: some AnnotationStore) async throws -> [(id: AnnotationID, status: WriteStatus)]? {
        let chunks = ImportChunks()
        async let written = store.importContents(chunks: chunks.next)
        let accepted = body.withUnsafeBytes { bytes in GeoJSONFastReader.read(bytes, emit: chunks.send) }
        accepted ? chunks.finish() : chunks.fail(Declined())
        do {
            return try await written
        } catch where !accepted {
            // Declined (or the transaction failed meanwhile): nothing was written; report from the tree.
            let features = body.withUnsafeBytes { bytes in JSONValueParser.parse(bytes).flatMap(features(of:)) }
            guard let features else { return nil }
            return try await store.importContents(contents(of: features))
        }
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
