import CompressNIO
public import HTTPTypes
public import Hummingbird
import NIOCore

/// `Content-Encoding: gzip` (compress-nio's zlib) for answers worth it, when the request's
/// `Accept-Encoding` gives gzip a weight above 0 (RFC 9110 §12.5.3).
///
/// Worth it: a body of known length of at least ``minimumSize`` bytes, of a type that compresses
/// (JSON, YAML, text, vector tiles; not images, which are compressed already). An event stream
/// (`text/event-stream`, of unknown length) is never held back to be compressed: each message
/// must leave when it is written. Such answers carry `Vary: Accept-Encoding`, compressed or not.
/// Validators stay as they are: the `ETag` names the resource's version, so `If-None-Match` and
/// `If-Match` match whichever encoding the client got. No `br`: neither swift-nio-extras nor
/// compress-nio has a Brotli encoder.
public struct CompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The smallest body compressed: below about 1 KiB an answer fits one TCP segment (1460
    /// bytes) either way, so gzip would save no round trip and only cost time, and the small
    /// answers (conversions, single annotations) are the ones that must stay fastest.
    public static var minimumSize: Int { 1024 }

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        // Every answer of a compressible type varies by Accept-Encoding, whatever its size this time,
        // and so does a 304, which says what its 200 would have said (RFC 9110 §15.4.5).
        guard response.status == .notModified || Self.compresses(response.headers[.contentType]) else { return response }
        response.headers[values: .vary].append("Accept-Encoding")
        guard let length = response.body.contentLength, length >= Self.minimumSize, response.headers[.contentEncoding] == nil,
              response.status != .notModified else { return response }
        guard QualityList(request.headers[values: .acceptEncoding]).quality(ofCoding: "gzip") > 0 else { return response }
        var body = try await BodyCollector.collect(response.body, capacity: length)
        let compressor = CompressionAlgorithm.gzip().compressor
        try compressor.startStream()
        defer { try? compressor.finishStream() }
        var compressed = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: body))
        try compressor.streamDeflate(from: &body, to: &compressed, flush: .finish)
        response.headers[.contentEncoding] = "gzip"
        response.body = ResponseBody(byteBuffer: compressed)
        return response
    }

    /// Whether a media type compresses well: text, JSON and YAML of any flavour, vector tiles.
    static func compresses(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.lowercased() else { return false }
        if type == "text/event-stream" { return false }
        return type.hasPrefix("text/") || type.hasSuffix("json") || type.hasSuffix("yaml") || type == "application/vnd.mapbox-vector-tile"
    }
}

/// Gathers what a response body writes into one buffer.
private final class BodyCollector: ResponseBodyWriter {
    var buffer: ByteBuffer

    private init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    static func collect(_ body: ResponseBody, capacity: Int) async throws -> ByteBuffer {
        let collector = BodyCollector(capacity: capacity)
        try await body.write(collector)
        return collector.buffer
    }

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
