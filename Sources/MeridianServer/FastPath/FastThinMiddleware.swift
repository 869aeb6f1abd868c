import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import MeridianAPI
import NIOCore

/// The fast path of `POST /v1/annotations/thin`: the request decoded and validated exactly as the
/// generated handler does, the answer written by ``ThinAnswerWriter``. A request it cannot
/// answer (any error) goes on to the generated handler, which explains it.
struct FastThinMiddleware<Context: RequestContext, Store: AnnotationStore>: RouterMiddleware {
    let store: Store
    let thinning: ThinningFollower

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, request.uri.path == "/v1/annotations/thin",
              request.headers[.contentType]?.hasPrefix("application/json") == true
        else { return try await next(request, context) }
        var copy = request
        let body = try await copy.collectBody(upTo: .max)  // already bounded and buffered by BodyLimitMiddleware
        guard let wire = try? JSONDecoder().decode(Components.Schemas.ThinRequest.self, from: Data(body.readableBytesView)),
              let thin = try? ThinningRequest(wire)
        else { return try await next(request, context) }
        let answer = try await ThinningAnswer(thin, thinning: thinning, store: store)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: ThinAnswerWriter.write(answer))))
    }
}
