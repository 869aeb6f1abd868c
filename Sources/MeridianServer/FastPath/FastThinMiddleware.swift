import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import MeridianAPI
import NIOCore

/// The fast path of `POST /v1/annotations/thin` and `GET /v1/clusters/{id}`: the request decoded
/// and validated exactly as the generated handler does, the answer written by
/// ``ThinAnswerWriter`` (with `null` where the generated encoder would leave a key out). A
/// request it cannot answer (any error) goes on to the generated handler, which explains it.
struct FastThinMiddleware<Context: RequestContext, Store: AnnotationStore>: RouterMiddleware {
    let store: Store
    let thinning: ThinningFollower

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .get, let cluster = try await cluster(at: request.uri.path) {
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: ThinAnswerWriter.write(cluster))))
        }
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

    /// The cluster a `/v1/clusters/{id}` path names, when it exists.
    private func cluster(at path: String) async throws -> ThinnedCluster? {
        let prefix = "/v1/clusters/"
        guard path.hasPrefix(prefix), let id = ClusterID(String(path.dropFirst(prefix.count))) else { return nil }
        return try await thinning.current().cluster(id)
    }
}
