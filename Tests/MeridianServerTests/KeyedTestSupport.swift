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

/// An application on a temporary SQLite file with API keys made beforehand, as
/// `meridian keys create` makes them: `tokens["acme/writer"]` is that key's bearer token.
enum KeyedApp {
    static func withClient(
        keys: [(tenant: String, role: Role)],
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (_ client: any TestClientProtocol, _ tokens: [String: String], _ database: String) async throws -> Void
    ) async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        let store = SQLiteKeyStore(database: try MeridianDatabase.open(path: file.path))
        var tokens: [String: String] = [:]
        for (tenant, role) in keys {
            let (token, key) = KeySecret.make(tenant: TenantID(tenant)!, role: role, name: nil, at: Date())
            try store.insert(key)
            tokens["\(tenant)/\(role.rawValue)"] = token
        }
        var configuration = ServerConfiguration.testing
        configuration.databasePath = file.path
        configure(&configuration)
        let app = try await buildApplication(configuration)
        let made = tokens
        try await app.test(.router) { client in try await body(client, made, file.path) }
    }
}

extension TestClientProtocol {
    /// Sends `body` (JSON text) as the holder of `token`.
    func send(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil, key token: String?, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await send(method, path, json: body, headers: headers)
    }

    /// Creates an annotation as the holder of `token`, expecting 201.
    func createAnnotation(_ json: String, key token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireAnnotation {
        let response = try await send(.post, "/v1/annotations", json: json, key: token)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireAnnotation.self)
    }
}
