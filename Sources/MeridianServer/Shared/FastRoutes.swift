import MeridianHTTP
import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import MapGeometry
import MeridianAPI
import NIOCore
import AnnotationIndex
import WireJSON
import Timeline

/// The fast paths, one table: for the hottest endpoints a hand-written reader and writer
/// (``WireJSON``) instead of Foundation's coders, which took most of their time.
///
/// Each route answers only requests it reads completely; it declines (nil) anything else, and the
/// request goes on to the generated handler, so the contract's decoding errors live in one place.
/// Domain errors a route throws become problem+json like any handler's. Tests compare both paths
/// byte for byte on the same input. Like the handlers, they reach only the caller's tenant.
struct FastRoutes<Context: RequestContext>: RouterMiddleware {
    /// One fast path: the method and body media types it takes, and its answer (nil: decline).
    struct Route: Sendable {
        var method: HTTPRequest.Method
        /// Media types of the body it reads; empty for a request without a body.
        var mediaTypes: Set<String> = []
        var answer: @Sendable (_ path: String, _ body: ByteBuffer) async throws -> [UInt8]?
    }

    private let exact: [String: Route]
    private let prefixed: [(prefix: String, route: Route)]

    init(tenants: TenantSpace, metrics: ServerMetrics, maxBatchSize: Int, thinNulls: NullShape?) {
        let json: Set<String> = ["application/json"]
        exact = [
            Paths.coordinatesToMapPoints: Route(method: .post, mediaTypes: json) { _, body in
                Self.convert(body, .coordinates, limit: maxBatchSize, output: .mapPoints) { latitude, longitude in
                    guard let coordinate = try? Coordinate(validatingLatitude: latitude, longitude: longitude) else { return nil }
                    let point = Mercator.mapPoint(for: coordinate)
                    return (point.x, point.y)
                }
            },
            Paths.mapPointsToCoordinates: Route(method: .post, mediaTypes: json) { _, body in
                Self.convert(body, .mapPoints, limit: maxBatchSize, output: .coordinates) { x, y in
                    guard let point = try? MapPoint(validatingX: x, y: y) else { return nil }
                    let coordinate = Mercator.coordinate(for: point)
                    return (coordinate.latitude, coordinate.longitude)
                }
            },
            // The contract's media types for the body; anything else is the generated handler's (415).
            Paths.annotationImport: Route(method: .post, mediaTypes: ["application/geo+json", "application/json"]) { _, body in
                // Nil when the body is not a FeatureCollection: the generated decoding explains.
                try await GeoJSONImport.importBody(Data(body.readableBytesView), into: tenants.current().annotations).map(ImportAnswerWriter.write)
            },
            Paths.search: Route(method: .post, mediaTypes: json) { _, body in try await QueryRoutes.search(body, tenants: tenants) },
            Paths.nearest: Route(method: .post, mediaTypes: json) { _, body in try await QueryRoutes.nearest(body, tenants: tenants) },
            Paths.thin: Route(method: .post, mediaTypes: json) { _, body in
                // A repeated key or a null (which JSONDecoder would let through) or a decoding error: the generated handler explains.
                guard body.withUnsafeReadableBytes({ JSONBodyCheck.first(in: $0, nulls: thinNulls) }) == nil,
                      let wire = try? JSONDecoder().decode(Components.Schemas.ThinRequest.self, from: Data(body.readableBytesView)),
                      wire.filter == nil  // a CQL2 filter is read (and explained) by the generated handler
                else { return nil }
                return ThinAnswerWriter.write(try await ThinningAnswer(ThinningQuery(wire, filter: nil), tenant: tenants.current()))
            },
        ]
        prefixed = [
            (Paths.devicePrefix, Route(method: .post, mediaTypes: json) { path, body in
                try await IngestRoute.answer(path: path, body: body, tenants: tenants, metrics: metrics)
            }),
            (Paths.clusterPrefix, Route(method: .get) { path, _ in
                // A malformed id or a gone cluster: the generated handler says which (and reads `aggregate`).
                guard let id = ClusterID(String(path.dropFirst(Paths.clusterPrefix.count))),
                      let cluster = try await tenants.current().cluster(id, aggregates: [:]) else { return nil }
                return ClusterJSON.write(cluster, aggregateKinds: [:])
            }),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard let route = exact[path] ?? prefixed.first(where: { path.hasPrefix($0.prefix) })?.route,
              request.method == route.method, route.mediaTypes.isEmpty || route.mediaTypes.contains(Self.mediaType(request)),
              // A GET's query parameters (a cluster's `aggregate`) are the generated handler's to read.
              route.method != .get || (request.uri.query ?? "").isEmpty
        else { return try await next(request, context) }
        var copy = request
        // Already bounded and buffered by BodyLimitMiddleware.
        let body = route.mediaTypes.isEmpty ? ByteBuffer() : try await copy.collectBody(upTo: .max)
        // Every fast route reads JSON: the contract's operations' rule for its encoding, before any reader sees it.
        if !route.mediaTypes.isEmpty,
           let refusal = body.withUnsafeReadableBytes({ JSONTextEncoding.refusal(contentType: request.headers[.contentType], body: $0) }) {
            throw refusal
        }
        guard let answer = try await route.answer(path, body) else { return try await next(copy, context) }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: answer)))
    }

    /// The request's media type without parameters, lowercased.
    private static func mediaType(_ request: Request) -> String {
        (request.headers[.contentType] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// The converted pairs written as `{"<batch>":[{"<first>":a,"<second>":b},…]}`, or nil when the
    /// body is not a valid batch of the input shape.
    private static func convert(
        _ body: ByteBuffer, _ input: PairBatchScanner, limit: Int, output: PairShape, _ transform: (Double, Double) -> (Double, Double)?
    ) -> [UInt8]? {
        guard let pairs = body.withUnsafeReadableBytes({ input.scan($0, limit: limit) }) else { return nil }
        var json = JSONWriter(capacity: 16 + pairs.count * 48)
        json.raw(output.open)
        for (index, pair) in pairs.enumerated() {
            guard let (a, b) = transform(pair.0, pair.1) else { return nil }
            if index > 0 { json.raw(",") }
            json.raw(output.firstKey)
            json.number(a)
            json.raw(output.secondKey)
            json.number(b)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }
}

extension PairBatchScanner {
    /// `{"coordinates":[{"latitude":…,"longitude":…}]}`.
    static let coordinates = PairBatchScanner(batchKey: "coordinates", first: "latitude", second: "longitude")
    /// `{"mapPoints":[{"x":…,"y":…}]}`.
    static let mapPoints = PairBatchScanner(batchKey: "mapPoints", first: "x", second: "y")
}

/// How a conversion answer spells its pairs (keys sorted, as the generated encoder writes them).
struct PairShape: Sendable {
    var open: StaticString, firstKey: StaticString, secondKey: StaticString

    static let mapPoints = PairShape(open: "{\"mapPoints\":[", firstKey: "{\"x\":", secondKey: ",\"y\":")
    static let coordinates = PairShape(open: "{\"coordinates\":[", firstKey: "{\"latitude\":", secondKey: ",\"longitude\":")
}
