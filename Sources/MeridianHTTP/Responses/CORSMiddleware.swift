public import HTTPTypes
public import Hummingbird

/// Cross-origin requests from browsers (Fetch standard, "CORS protocol") for the origins the
/// server was started with (`--cors-origin`).
///
/// A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
/// answered here, before any key is asked for: a browser never sends credentials with it. Every
/// other answer to an allowed origin (errors too: 401, 404, 422, problem+json, fast routes) says
/// the origin may read it and which header fields it may see. Every answer varies by `Origin`.
/// `*` allows any origin without credentials, and only while the server is open: it is refused
/// at start on a server with keys (``CORSOrigins``), and stops answering once the first key is made.
public struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    public let origins: CORSOrigins
    public let routes: RouteTable
    /// Whether the server is open (no keys): read per request, as the first key ends open mode.
    public let isOpen: @Sendable () -> Bool

    public init(origins: CORSOrigins, routes: RouteTable, isOpen: @escaping @Sendable () -> Bool) {
        (self.origins, self.routes, self.isOpen) = (origins, routes, isOpen)
    }

    /// Request header fields a page may send beyond the safelisted ones.
    public static var allowedHeaders: String {
        "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, X-Request-Id, Accept"
    }
    /// Response header fields a page may read beyond the safelisted ones.
    public static var exposedHeaders: String { "ETag, Location, Link, Retry-After, X-Request-Id, Idempotent-Replayed, WWW-Authenticate" }
    /// Seconds a browser may keep a preflight's answer.
    public static var maxAge: String { "600" }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], let allowed = origins.allowOrigin(origin, open: origins.anyOrigin && isOpen()) else {
            var response = try await next(request, context)
            response.headers[values: .vary].append("Origin")
            return response
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil, let methods = routes.methods(at: request.uri.path) {
            var headers = cors(allowed)
            headers[.accessControlAllowMethods] = RouteTable.allowHeader(methods + [.options])
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = Self.maxAge
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers.append(contentsOf: cors(allowed))
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        return response
    }

    /// The fields that let `allowed` (an origin, or `*`) read an answer.
    private func cors(_ allowed: String) -> HTTPFields {
        var headers: HTTPFields = [.accessControlAllowOrigin: allowed, .vary: "Origin"]
        // Credentials (cookies, TLS client certificates) never with `*`, as the Fetch standard demands.
        if allowed != "*" { headers[.accessControlAllowCredentials] = "true" }
        return headers
    }
}

/// The origins `--cors-origin` allows: `scheme://host[:port]` each, or `*` for any (open mode only).
public struct CORSOrigins: Sendable, Equatable {
    public let origins: Set<String>
    public let anyOrigin: Bool

    /// - Throws: ``CORSOriginError`` for a value that is not an origin, or `*` on a server with keys.
    public init(_ values: [String], keyed: Bool) throws(CORSOriginError) {
        anyOrigin = values.contains("*")
        if anyOrigin && keyed {
            throw CORSOriginError(description: "--cors-origin '*' lets any web page use the API; it is refused on a server with API keys (a page would send a key to any site). Name each origin instead: --cors-origin https://app.example.com")
        }
        for value in values where value != "*" && !Self.isOrigin(value) {
            throw CORSOriginError(description: "--cors-origin \(value) is not an origin: write scheme://host[:port], without a path or a trailing slash (https://app.example.com, http://localhost:5173), or *")
        }
        origins = Set(values.filter { $0 != "*" }.map { $0.lowercased() })
    }

    /// Whether any origin is allowed at all.
    public var isEmpty: Bool { origins.isEmpty && !anyOrigin }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, nil when refused;
    /// `*` only while the server is `open`.
    public func allowOrigin(_ origin: String, open: Bool) -> String? {
        if origins.contains(origin.lowercased()) { return origin }
        return anyOrigin && open ? "*" : nil
    }

    /// `scheme://host[:port]`: an http(s) scheme, a host, at most a port, nothing after.
    private static func isOrigin(_ value: String) -> Bool {
        let parts = value.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()) else { return false }
        let authority = parts[1]
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("?"), !authority.contains("#"), !authority.contains("@") else { return false }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            return UInt16(authority[authority.index(after: colon)...]) != nil && colon != authority.startIndex
        }
        return true
    }
}

/// A `--cors-origin` value the server cannot start with.
public struct CORSOriginError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
