import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianClient
import MeridianServer
import OpenAPIRuntime
import Synchronization
import TestSupport
import Testing

/// A server on 127.0.0.1 (a free port, a fresh database of the engine under test) and a
/// ``Meridian`` client of it: the generated client over its real transport, nothing in between.
enum LiveServer {
    /// Runs `body` with a client of a server on the testing configuration as `configure` changes it.
    static func withClient(
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        middlewares: [any ClientMiddleware] = [],
        _ body: @Sendable (Meridian) async throws -> Void
    ) async throws {
        var configuration = try await TestApp.configuration()
        configure(&configuration)
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            try await body(Meridian(serverURL: try url(client), middlewares: middlewares))
        }
    }

    /// The address of a live test client's server.
    static func url(_ client: any TestClientProtocol) throws -> URL {
        let port = try #require(client.port)
        return try #require(URL(string: "http://127.0.0.1:\(port)"))
    }
}

/// Counts the requests of each operation the client sends (what a test cannot see otherwise:
/// how many times a retrying call went to the server).
final class RequestCounter: ClientMiddleware {
    private let counts = Mutex<[String: Int]>([:])

    /// Requests of `operationID` sent so far.
    func count(_ operationID: String) -> Int { counts.withLock { $0[operationID] ?? 0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        counts.withLock { $0[operationID, default: 0] += 1 }
        return try await next(request, body, baseURL)
    }
}
