public import Foundation
public import OpenAPIRuntime
#if canImport(OpenAPIURLSession)
import OpenAPIURLSession
#else
import NIOCore
import OpenAPIAsyncHTTPClient
#endif

/// A Meridian server as an app talks to it: the generated ``Client`` (every operation of the
/// contract, `openapi.yaml`) as ``api``, and the few things a map app does over and over on top of
/// it (thin the visible map rect, page through a search, follow the event stream, send fixes with
/// retries).
///
/// ```swift
/// let meridian = Meridian(serverURL: URL(string: "https://api.example.com")!, apiKey: "mrd_…")
/// let answer = try await meridian.thin(visibleMapRect: rect, size: ViewSize(width: 390, height: 844))
/// ```
///
/// The transport is URLSession on Apple platforms (swift-openapi-urlsession) and AsyncHTTPClient
/// elsewhere (swift-openapi-async-http-client, waiting up to 2 minutes for an answer's head, so
/// that a 60-second long poll fits; a stream's body is not cut); pass another to change it.
public struct Meridian: Sendable {
    /// The generated client: one method per operation, its input and output types generated too.
    public let api: Client
    /// The server's address, as given.
    public let serverURL: URL

    /// A client of the server at `serverURL` (scheme, host, port; the contract's paths start at `/`).
    /// - Parameters:
    ///   - apiKey: sent as `Authorization: Bearer <apiKey>`; nil for a server in open mode.
    ///   - transport: how requests travel; nil picks the platform's (see above).
    ///   - middlewares: run on every request after the key is added, in order.
    public init(
        serverURL: URL, apiKey: String? = nil, transport: (any ClientTransport)? = nil,
        middlewares: [any ClientMiddleware] = []
    ) {
        self.serverURL = serverURL
        let authentication: [any ClientMiddleware] = apiKey.map { [BearerAuthentication(key: $0)] } ?? []
        self.api = Client(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: RFC3339Dates()),
            transport: transport ?? Self.platformTransport(),
            middlewares: authentication + middlewares
        )
    }

    /// URLSession on Apple platforms, AsyncHTTPClient elsewhere.
    static func platformTransport() -> any ClientTransport {
        #if canImport(OpenAPIURLSession)
        URLSessionTransport()
        #else
        AsyncHTTPClientTransport(configuration: .init(timeout: .minutes(2)))
        #endif
    }
}
