import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianHTTP
import NIOCore
import Testing
import TestSupport

@testable import MeridianServer

/// Browsers on other origins (`--cors-origin`): preflights without a key, CORS fields on every
/// answer to an allowed origin (errors and fast routes too), nothing for the others.
@Suite(.watchdog) struct CORSTests {
    static let app = "http://app.example:5173"

    @Test func aPreflightFromAnAllowedOriginIsAnsweredWithoutAKey() async throws {
        try await KeyedApp.withClient(keys: [("acme", .writer)], configure: { $0.corsOrigins = [Self.app] }) { client, _, _ in
            let preflight = try await client.execute(uri: "/v1/annotations", method: .options, headers: [
                .origin: Self.app, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "authorization, content-type, idempotency-key",
            ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == Self.app)
            #expect(preflight.headers[.accessControlAllowMethods] == "GET, HEAD, OPTIONS, POST")
            let allowed = Set((preflight.headers[.accessControlAllowHeaders] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            #expect(allowed.isSuperset(of: ["authorization", "content-type", "if-match", "if-none-match", "idempotency-key", "last-event-id"]))
            #expect(preflight.headers[values: .vary].contains("Origin") && preflight.headers[.accessControlMaxAge] != nil)
            #expect(preflight.headers[.accessControlAllowCredentials] == "true")

            // Another origin gets no permission (the browser stops there), only Allow.
            let other = try await client.execute(uri: "/v1/annotations", method: .options, headers: [
                .origin: "http://evil.example", .accessControlRequestMethod: "POST",
            ])
            #expect(other.headers[.accessControlAllowOrigin] == nil && other.headers[.accessControlAllowMethods] == nil)
            #expect(other.headers[values: .vary].contains("Origin"))
        }
    }

    @Test func everyAnswerToAnAllowedOriginCarriesCORSFieldsErrorsIncluded() async throws {
        try await KeyedApp.withClient(keys: [("acme", .writer)], configure: { $0.corsOrigins = [Self.app, "https://other.example"] }) { client, tokens, _ in
            let key = try #require(tokens["acme/writer"])
            let created = try await client.send(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":1,"longitude":2}}"#, key: key, headers: [.origin: Self.app])
            let unauthorized = try await client.send(.get, "/v1/annotations", key: nil, headers: [.origin: Self.app])
            let missing = try await client.send(.get, "/v1/annotations/0190a0a0-0000-7000-8000-000000000001", key: key, headers: [.origin: Self.app])
            let invalid = try await client.send(.post, "/v1/convert/coordinates-to-map-points", json: #"{"coordinates":[{"latitude":91,"longitude":0}]}"#,
                                                key: key, headers: [.origin: Self.app])
            let fast = try await client.send(.post, "/v1/convert/coordinates-to-map-points", json: #"{"coordinates":[{"latitude":1,"longitude":0}]}"#,
                                             key: key, headers: [.origin: Self.app])
            let unknownPath = try await client.send(.get, "/v1/nowhere", key: key, headers: [.origin: Self.app])
            for (name, response, status) in [("created", created, HTTPResponse.Status.created), ("401", unauthorized, .unauthorized), ("404", missing, .notFound),
                                              ("422", invalid, .unprocessableContent), ("fast route", fast, .ok), ("no such path", unknownPath, .notFound)] {
                #expect(response.status == status, "\(name)")
                #expect(response.headers[.accessControlAllowOrigin] == Self.app, "\(name)")
                #expect(response.headers[values: .vary].contains("Origin"), "\(name)")
                let exposed = Set((response.headers[.accessControlExposeHeaders] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
                #expect(exposed.isSuperset(of: ["etag", "location", "link", "retry-after", "x-request-id"]), "\(name)")
            }
            // The other allowed origin is named back as itself; a refused one gets nothing to read with.
            let second = try await client.send(.get, "/healthz", key: nil, headers: [.origin: "https://other.example"])
            #expect(second.headers[.accessControlAllowOrigin] == "https://other.example")
            let refused = try await client.send(.get, "/healthz", key: nil, headers: [.origin: "http://evil.example"])
            #expect(refused.status == .ok && refused.headers[.accessControlAllowOrigin] == nil && refused.headers[.accessControlExposeHeaders] == nil)
            #expect(refused.headers[values: .vary].contains("Origin"))
        }
    }

    @Test func anyOriginIsForOpenModeOnlyAndNeverWithCredentials() async throws {
        try await TestApp.withClient(configure: { $0.corsOrigins = ["*"] }) { client in
            let response = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: "http://anywhere.example"])
            #expect(response.headers[.accessControlAllowOrigin] == "*" && response.headers[.accessControlAllowCredentials] == nil)
            let preflight = try await client.execute(uri: "/v1/viewport", method: .options, headers: [.origin: "http://anywhere.example", .accessControlRequestMethod: "POST"])
            #expect(preflight.headers[.accessControlAllowOrigin] == "*" && preflight.headers[.accessControlAllowCredentials] == nil)
        }
        await #expect(throws: CORSOriginError.self) {
            try await KeyedApp.withClient(keys: [("acme", .reader)], configure: { $0.corsOrigins = ["*"] }) { _, _, _ in
                Issue.record("a keyed server started with --cors-origin '*'")
            }
        }
    }

    @Test(arguments: ["app.example", "http://app.example/", "http://app.example/path", "ftp://app.example", "http://", "http://user@app.example", "http://app.example:99999"])
    func aValueThatIsNotAnOriginIsRefused(_ value: String) {
        #expect(throws: CORSOriginError.self) { try CORSOrigins([value], keyed: false) }
    }

    @Test func originsAreSchemeHostAndPort() throws {
        let origins = try CORSOrigins(["https://App.Example", "http://localhost:5173", "http://[::1]:8080"], keyed: true)
        #expect(origins.allowOrigin("https://app.example", open: false) == "https://app.example")
        #expect(origins.allowOrigin("http://localhost:5173", open: false) != nil && origins.allowOrigin("http://localhost:5174", open: false) == nil)
        #expect(origins.allowOrigin("http://[::1]:8080", open: false) != nil)
        #expect(try CORSOrigins([], keyed: true).isEmpty)
    }

    /// `*` answers only while the server is open: the first key made ends it, without a restart.
    @Test func anyOriginEndsWithOpenMode() throws {
        let any = try CORSOrigins(["*", "https://app.example"], keyed: false)
        #expect(any.allowOrigin("https://elsewhere.example", open: true) == "*")
        #expect(any.allowOrigin("https://elsewhere.example", open: false) == nil)
        #expect(any.allowOrigin("https://app.example", open: false) == "https://app.example")
    }
}
