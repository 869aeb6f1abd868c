import Foundation
public import HTTPTypes
public import Hummingbird
public import Logging
import Synchronization

/// What the middleware chain learns about one request: its contract route, found once here and
/// read by every middleware below, and its caller, filled in by ``AccessMiddleware`` further down
/// (a task-local value set there would not reach back up to the log line).
public final class RequestRecord: Sendable {
    /// The contract's path template of the request; nil when none matches.
    public let route: String?
    private let caller = Mutex<(tenant: String?, keyID: String?)>((nil, nil))

    public init(route: String?) {
        self.route = route
    }

    /// The route of `request`: the record's, or found in `routes` outside the observed chain.
    public static func route(of request: Request, in routes: RouteTable) -> String? {
        if let current { return current.route }
        return routes.template(at: request.uri.path)
    }

    public func note(tenant: String, keyID: String?) { caller.withLock { $0 = (tenant, keyID) } }
    public var noted: (tenant: String?, keyID: String?) { caller.withLock { $0 } }

    @TaskLocal public static var current: RequestRecord?
}

/// The outermost middleware: gives every request an id (`X-Request-Id` as sent when it is a
/// sane token, else a new UUID) echoed in the answer, writes one log line per request (method,
/// route template, status, duration, request id, tenant and key id — never a secret or a body),
/// and counts it in the metrics by route template and status.
public struct ObservabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    public let routes: RouteTable
    public let metrics: ServerMetrics
    public let logger: Logger

    public init(routes: RouteTable, metrics: ServerMetrics, logger: Logger) {
        (self.routes, self.metrics, self.logger) = (routes, metrics, logger)
    }
    /// The header carrying the request id both ways.
    public static var requestIDField: HTTPField.Name { .requestID }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let requestID = request.headers[Self.requestIDField].flatMap(Self.sane) ?? Self.newRequestID()
        let record = RequestRecord(route: routes.template(at: request.uri.path))
        var status = 500
        defer { finish(request, route: record.route, status: status, duration: ContinuousClock.now - start, requestID: requestID, caller: record.noted) }
        var response = try await RequestRecord.$current.withValue(record) { try await next(request, context) }
        status = response.status.code
        response.headers[Self.requestIDField] = requestID
        return response
    }

    /// Counts the answered request and writes its log line.
    private func finish(_ request: Request, route: String?, status: Int, duration: Duration, requestID: String, caller: (tenant: String?, keyID: String?)) {
        // A path no template matches gets one label: a raw URL would give every scanner's probe a series of its own.
        let route = route ?? "unmatched"
        metrics.request(route: route, method: request.method.rawValue, status: status, duration: duration)
        // The line's metadata is built only when it will be written.
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "requestId": "\(requestID)", "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(status)",
            "durationMs": "\(Double(duration.components.attoseconds / 1_000_000_000_000) / 1_000 + Double(duration.components.seconds) * 1_000)",
        ]
        if let tenant = caller.tenant { metadata["tenant"] = "\(tenant)" }
        if let keyID = caller.keyID { metadata["keyId"] = "\(keyID)" }
        logger.info("request", metadata: metadata)
    }

    /// A random (version 4) UUID in lowercase text. Foundation's `UUID()` opens `/dev/urandom` each
    /// time (an `openat` and a `close` per request, seen with strace); the system generator does not.
    public static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        let hex = bytes.map { byte in String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    /// A client's request id, kept when it is 1–128 visible ASCII characters (it goes into logs).
    public static func sane(_ value: String) -> String? {
        (1...128).contains(value.utf8.count) && value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? value : nil
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the request's id, as the client sent it or as the server made it.
    public static let requestID = HTTPField.Name("X-Request-Id")!
}
