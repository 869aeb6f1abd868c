import Access
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Storage
import Testing
import Timeline

/// An application on a temporary database (of the engine under test) with API keys made beforehand, as
/// `meridian keys create` makes them: `tokens["acme/writer"]` is that key's bearer token. `setup`
/// `.live` serves it on 127.0.0.1 (a free port) for clients that need real HTTP.
public enum KeyedApp {
    public static func withClient(
        keys: [(tenant: String, role: Role)],
        setup: TestingSetup = .router,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (_ client: any TestClientProtocol, _ tokens: [String: String], _ database: String) async throws -> Void
    ) async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        let place = TestEngine.contract == .sqlite ? file.path : try await TestEngine.contract.freshPlace(persistent: true)
        let storage = try await DatabasePlace.open(place)
        var tokens: [String: String] = [:]
        for (tenant, role) in keys {
            let (token, key) = KeySecret.make(tenant: TenantID(tenant)!, role: role, name: nil, at: Date())
            try await storage.insert(key)
            tokens["\(tenant)/\(role.rawValue)"] = token
        }
        await storage.close()
        var configuration = ServerConfiguration.testing
        configuration.databasePath = place
        configure(&configuration)
        let app = try await buildApplication(configuration)
        let made = tokens
        try await app.test(setup) { client in try await body(client, made, place) }
    }
}

extension TestClientProtocol {
    /// The answer to `request` once another process's key write holds: the next request on
    /// SQLite (every check reads the table); on PostgreSQL once the write's notification reached
    /// the server's copy of the keys (retried for up to a second, which it never needs on loopback).
    public func afterKeyWrites(_ request: () async throws -> TestResponse) async throws -> TestResponse {
        var response = try await request()
        guard TestEngine.contract == .postgres else { return response }
        let deadline = ContinuousClock.now + .seconds(1)
        while response.status != .unauthorized, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            response = try await request()
        }
        return response
    }

    /// Sends `body` (JSON text) as the holder of `token`.
    public func send(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil, key token: String?, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await send(method, path, json: body, headers: headers)
    }

    /// Creates an annotation as the holder of `token`, expecting 201.
    public func createAnnotation(_ json: String, key token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireAnnotation {
        let response = try await send(.post, "/v1/annotations", json: json, key: token)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireAnnotation.self)
    }
}
