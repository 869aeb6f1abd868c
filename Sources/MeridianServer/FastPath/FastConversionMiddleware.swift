import Hummingbird
import HTTPTypes
import MapGeometry
import NIOCore

/// A fast path for the two busiest conversions, coordinates ↔ map points, which clients send
/// in batches of thousands: a strict scanner and a direct writer instead of Foundation's JSON
/// coders (ten times slower here).
///
/// It answers only well-formed, valid requests of exactly the documented shape. Anything else,
/// every error included, goes on to the generated handler, so the contract's behaviour and
/// errors live in one place. Tests compare both paths on the same input.
struct FastConversionMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBatchSize: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post,
              request.headers[.contentType]?.hasPrefix("application/json") == true
        else { return try await next(request, context) }
        let answer: ByteBuffer?
        switch request.uri.path {
        case "/v1/convert/coordinates-to-map-points":
            answer = try await convert(request, .coordinates) { latitude, longitude in
                guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
                let point = Mercator.mapPoint(for: Coordinate(latitude: latitude, longitude: longitude))
                return (point.x, point.y)
            }.map { JSONNumberWriter.pairs($0, batchKey: "mapPoints", first: "x", second: "y") }
        case "/v1/convert/map-points-to-coordinates":
            answer = try await convert(request, .mapPoints) { x, y in
                let coordinate = Mercator.coordinate(for: MapPoint(x: x, y: y))
                return (coordinate.latitude, coordinate.longitude)
            }.map { JSONNumberWriter.pairs($0, batchKey: "coordinates", first: "latitude", second: "longitude") }
        default:
            answer = nil
        }
        guard let answer else { return try await next(request, context) }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: answer))
    }

    /// The converted pairs, or nil when the body is not a valid batch of this shape.
    private func convert(
        _ request: Request, _ scanner: PairBatchScanner, _ transform: (Double, Double) -> (Double, Double)?
    ) async throws -> [(Double, Double)]? {
        var request = request
        let body = try await request.collectBody(upTo: .max)  // already bounded and buffered by BodyLimitMiddleware
        let pairs = body.withUnsafeReadableBytes { scanner.scan($0, limit: maxBatchSize) }
        guard let pairs else { return nil }
        var converted: [(Double, Double)] = []
        converted.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let result = transform(pair.0, pair.1) else { return nil }
            converted.append(result)
        }
        return converted
    }
}
