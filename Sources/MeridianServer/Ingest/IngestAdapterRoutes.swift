import MeridianHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Timeline
import Tracking

/// `/v1/ingest/owntracks`, `/v1/ingest/osmand` and `/v1/ingest/overland`: the tracking apps'
/// own protocols, each read into fixes that go through the same ingest as
/// `POST /v1/devices/{deviceId}/locations` (same checks, committed before the answer, same
/// events), and answered as the app expects: OwnTracks `[]`, OsmAnd an empty 200, Overland
/// `{"result":"ok"}`. A request the protocol's reader refuses is 400 (422 past a limit: attributes,
/// a batch's size) problem+json naming the
/// field, and nothing of it is stored; every app keeps such a request and sends it again later.
/// A fix Meridian does not store (`rejected`, `duplicate`) is still acknowledged: sending it
/// again would not change that.
///
/// Hand-written because the protocols are not JSON Meridian describes: free query and form
/// parameters, headers naming the device. The contract declares them (so keys, limits and the
/// request log treat them as operations); the generated handlers are never reached.
struct IngestAdapterRoutes<Context: HeadAwareContext>: RouterMiddleware {
    let tenants: TenantSpace
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(Paths.ingestPrefix) else { return try await next(request, context) }
        var copy = request
        // Already bounded and buffered by BodyLimitMiddleware.
        let body = try await copy.collectBody(upTo: .max)
        switch (path, request.method) {
        case (Paths.ownTracks, .post): return try await ownTracks(request, body)
        case (Paths.osmAnd, .get), (Paths.osmAnd, .post): return try await osmAnd(request, body, head: context.answersHead)
        case (Paths.overland, .post): return try await overland(request, body)
        default: return try await next(copy, context)
        }
    }

    private func ownTracks(_ request: Request, _ body: ByteBuffer) async throws -> Response {
        guard let message = try body.withUnsafeReadableBytes({ bytes throws(ProblemError) in try OwnTracksMessage.fix(bytes) }) else {
            return Self.json("[]")
        }
        let (fix, topic) = message
        let query = Self.query(request)
        let deviceId = try OwnTracksMessage.deviceId(
            user: IngestCredentials.basic(request.headers[.authorization]).flatMap { $0.user.isEmpty ? nil : $0.user } ?? request.headers[Self.limitUser] ?? query?["u"],
            device: request.headers[Self.limitDevice] ?? query?["d"], topic: topic)
        try await ingest([(deviceId, fix)])
        return Self.json("[]")
    }

    /// A `HEAD` (`head`) is read and checked as its `GET` and answered alike, but stores nothing:
    /// HEAD is safe (RFC 9110 §9.2.1), and link checkers and monitors send it to such URLs.
    private func osmAnd(_ request: Request, _ body: ByteBuffer, head: Bool) async throws -> Response {
        let fix: (deviceId: String, fix: LocationFix)?
        if Self.mediaType(request) == "application/json" {
            fix = try body.withUnsafeReadableBytes { bytes throws(ProblemError) in try OsmAndRequest.fix(json: bytes) }
        } else {
            // Traccar reads the query, and the body as a form when the query has nothing; both here, the body's last.
            guard var fields = FormFields(Substring(request.uri.query ?? "")) else {
                throw ProblemError(.badRequest, detail: "the query is not application/x-www-form-urlencoded UTF-8")
            }
            if body.readableBytes > 0 {
                guard let form = FormFields(Substring(String(buffer: body))) else {
                    throw ProblemError(.badRequest, detail: "the body is not application/x-www-form-urlencoded")
                }
                fields.append(contentsOf: form)
            }
            fix = try OsmAndRequest.fix(fields, now: try await tenants.current().tracking.tracker.currentTime)
        }
        if !head, let fix { try await ingest([fix]) }
        return Response(status: .ok)
    }

    private func overland(_ request: Request, _ body: ByteBuffer) async throws -> Response {
        let fallback = Self.query(request)?["device_id"]
        if let fallback { _ = try DeviceIdentifier.checked(fallback, parameter: "device_id") }
        let fixes = try body.withUnsafeReadableBytes { bytes throws(ProblemError) in try OverlandBatch.fixes(bytes, fallbackDevice: fallback) }
        try await ingest(fixes)
        return Self.json(#"{"result":"ok"}"#)
    }

    /// Each device's fixes in one ingest, devices in the order they first appear.
    private func ingest(_ fixes: [(deviceId: String, fix: LocationFix)]) async throws {
        var order: [String] = []
        var byDevice: [String: [LocationFix]] = [:]
        for (deviceId, fix) in fixes {
            if byDevice[deviceId] == nil { order.append(deviceId) }
            byDevice[deviceId, default: []].append(fix)
        }
        let tracking = try await tenants.current().tracking
        // One ingest per device, in order: a device's fixes commit before the next device's, so a
        // failure leaves the earlier devices stored; the app resends the upload and they come back
        // `duplicate`.
        for deviceId in order {
            guard let fixes = byDevice[deviceId] else { continue }
            _ = try await APIHandler.ingest(fixes, deviceId: deviceId, tracking: tracking, metrics: metrics)
        }
    }

    static var limitUser: HTTPField.Name { HTTPField.Name("X-Limit-U")! }
    static var limitDevice: HTTPField.Name { HTTPField.Name("X-Limit-D")! }

    private static func query(_ request: Request) -> FormFields? {
        request.uri.query.flatMap { FormFields(Substring($0)) }
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    private static func mediaType(_ request: Request) -> String {
        (request.headers[.contentType] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }
}
