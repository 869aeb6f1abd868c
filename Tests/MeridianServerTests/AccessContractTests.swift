import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import MeridianServer
import Storage
import Testing
import TestSupport
import Timeline

/// Keys and roles at the door: 401 without a valid key (with the Bearer challenge), 403 for a
/// role without the permission, 429 past the key's rate, open mode only until a key exists.
@Suite(.watchdog) struct AccessContractTests {
    /// One operation per endpoint family and the permission it needs (nil: any valid key).
    static let families: [(name: String, method: HTTPRequest.Method, path: String, body: String?, needs: Permission?)] = [
        ("convert", .post, "/v1/convert/coordinates-to-map-points", #"{"coordinates":[{"latitude":1,"longitude":2}]}"#, .read),
        ("geodesy", .post, "/v1/geodesic/inverse", #"{"pairs":[{"from":{"latitude":0,"longitude":0},"to":{"latitude":1,"longitude":1}}]}"#, .read),
        ("viewport", .post, "/v1/viewport", #"{"viewport":{"size":{"width":100,"height":100},"center":{"latitude":0,"longitude":0},"zoomLevel":3}}"#, .read),
        ("list annotations", .get, "/v1/annotations", nil, .read),
        ("change feed", .get, "/v1/annotations/changes?after=0", nil, .read),
        ("export", .get, "/v1/annotations/export", nil, .read),
        ("thin", .post, "/v1/annotations/thin", #"{"viewport":{"size":{"width":100,"height":100},"center":{"latitude":0,"longitude":0},"zoomLevel":3}}"#, .read),
        ("create annotation", .post, "/v1/annotations", #"{"coordinate":{"latitude":1,"longitude":2}}"#, .writeAnnotations),
        ("upsert annotation", .put, "/v1/annotations/by-external-id/k", #"{"coordinate":{"latitude":1,"longitude":2}}"#, .writeAnnotations),
        ("import", .post, "/v1/annotations/import", #"{"type":"FeatureCollection","features":[]}"#, .writeAnnotations),
        ("ingest", .post, "/v1/devices/d1/locations", #"{"locations":[]}"#, .ingestLocations),
        ("device", .get, "/v1/devices/d1/locations", nil, .read),
        ("subscribe", .post, "/v1/subscriptions", #"{"type":"significantChange"}"#, .administer),
        ("subscriptions", .get, "/v1/subscriptions", nil, .read),
        ("events", .get, "/v1/events?after=0", nil, .read),
        ("edit subscription", .patch, "/v1/subscriptions/0190a4b2-0000-7000-8000-000000000000", #"{"name":"x"}"#, .administer),
        ("delete subscription", .delete, "/v1/subscriptions/0190a4b2-0000-7000-8000-000000000000", nil, .administer),
        ("search", .post, "/v1/annotations/search", "{}", .read),
        ("nearest", .post, "/v1/annotations/nearest", #"{"coordinate":{"latitude":1,"longitude":2}}"#, .read),
        ("cluster tile", .get, "/v1/tiles/clusters/0/0/0.mvt", nil, .read),
        ("webhooks", .get, "/v1/webhooks", nil, .read),
        ("ingest filters", .get, "/v1/ingest-filters", nil, .read),
        ("set ingest filters", .put, "/v1/ingest-filters", "{}", .administer),
        ("retention", .get, "/v1/retention", nil, .read),
        ("set retention", .put, "/v1/retention", "{}", .administer),
    ]

    @Test func eachRoleReachesExactlyWhatItGrants() async throws {
        try await KeyedApp.withClient(keys: Role.allCases.map { ("acme", $0) }) { client, tokens, _ in
            for role in Role.allCases {
                for family in Self.families {
                    let response = try await client.send(family.method, family.path, json: family.body, key: tokens["acme/\(role.rawValue)"])
                    let allowed = family.needs.map(role.grants) ?? true
                    if allowed {
                        #expect(![401, 403].contains(response.status.code), "\(role) \(family.name): \(String(buffer: response.body))")
                    } else {
                        #expect(try response.problem(.forbidden).detail?.contains("a \(role.rawValue) key may not") == true, "\(role) \(family.name)")
                    }
                }
            }
            // Metrics are the operator's: an admin of the default tenant only.
            _ = try await client.send(.get, "/metrics", key: tokens["acme/admin"]).problem(.forbidden)
        }
    }

    @Test func pathSpellingsTheRouterAcceptsCannotSkipTheRoleCheck() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader), ("acme", .feed), ("acme", .admin)]) { client, tokens, _ in
            let pin = #"{"coordinate":{"latitude":1,"longitude":2}}"#
            for path in ["/v1/annotations/", "//v1/annotations", "/v1//annotations", "/v1/annotations//"] {
                _ = try await client.send(.post, path, json: pin, key: tokens["acme/reader"]).problem(.forbidden)
            }
            for path in ["/v1/subscriptions/", "//v1/subscriptions"] {
                _ = try await client.send(.post, path, json: #"{"type":"significantChange"}"#, key: tokens["acme/feed"]).problem(.forbidden)
                _ = try await client.send(.get, path, key: tokens["acme/feed"]).problem(.forbidden)
            }
            for path in ["/metrics/", "//metrics"] {
                _ = try await client.send(.get, path, key: tokens["acme/admin"]).problem(.forbidden)
            }
            // The router does route those spellings: an admin's create through one succeeds.
            #expect(try await client.send(.post, "/v1/annotations/", json: pin, key: tokens["acme/admin"]).status == .created)
        }
    }

    @Test func everyOperationButTheOpenOnesAnswers401WithoutAValidKey() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader)]) { client, _, _ in
            let served = try await client.send(.get, "/openapi.json", key: nil)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(served.body.readableBytesView)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var checked = 0
            for (template, operations) in paths {
                let path = template.replacingOccurrences(of: #"\{[^}]+\}"#, with: "x1", options: .regularExpression)
                for (method, operation) in operations {
                    guard let method = HTTPRequest.Method(method.uppercased()), let operation = operation as? [String: Any] else { continue }
                    let isPublic = (operation["security"] as? [Any])?.isEmpty == true
                    for token in [nil, "mrd_0123456789abcdef_not-the-secret", "Basic dXNlcjpwYXNz"] {
                        var headers: HTTPFields = [:]
                        if let token { headers[.authorization] = token.hasPrefix("Basic") ? token : "Bearer \(token)" }
                        let response = try await client.send(method, path, json: method == .get || method == .delete ? nil : "{}", headers: headers)
                        if isPublic {
                            #expect(response.status != .unauthorized, "\(method) \(template) is public")
                        } else {
                            _ = try response.problem(.unauthorized)
                            #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer realm=\"meridian\"") == true, "\(method) \(template)")
                            checked += 1
                        }
                    }
                }
            }
            #expect(checked >= 3 * 40)
        }
    }

    @Test func aRevokedKeyIsRefusedFromTheNextRequest() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader)]) { client, tokens, database in
            let token = tokens["acme/reader"]!
            #expect(try await client.send(.get, "/v1/annotations", key: token).status == .ok)
            let id = try #require(KeySecret.parse(Substring(token))?.id)
            // Another process's revocation (`meridian keys revoke`), through its own connection.
            let other = try await DatabasePlace.open(database)
            #expect(try await other.revokeKey(id: id, at: Date()))
            await other.close()
            let refused = try await client.afterKeyWrites { try await client.send(.get, "/v1/annotations", key: token) }
            _ = try refused.problem(.unauthorized)
            #expect(refused.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
        }
    }

    @Test func aKeyPastItsRateGets429WithRetryAfter() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader), ("acme", .writer)], configure: { $0.rateLimit = 0.01; $0.rateBurst = 3 }) { client, tokens, _ in
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/annotations", key: tokens["acme/reader"]).status == .ok) }
            let refused = try await client.send(.get, "/v1/annotations", key: tokens["acme/reader"])
            _ = try refused.problem(.tooManyRequests)
            // The next token is 1 / 0.01 = 100 s away (less whatever this test took).
            #expect(refused.headers[.retryAfter].flatMap(Int.init).map { (60...100).contains($0) } == true)
            // Buckets are per key.
            #expect(try await client.send(.get, "/v1/annotations", key: tokens["acme/writer"]).status == .ok)
        }
    }

    @Test func aKeyHoldsAtMostItsShareOfOpenLongPolls() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader), ("acme", .admin)], configure: { $0.maxStreamsPerKey = 1 }) { client, tokens, _ in
            let reader = tokens["acme/reader"]!
            async let first = client.send(.get, "/v1/events?after=0&wait=2", key: reader)
            try await Task.sleep(for: .milliseconds(300))
            let second = try await client.send(.get, "/v1/annotations/changes?after=0&wait=1", key: reader)
            #expect(try second.problem(.tooManyRequests).detail?.contains("open event streams and long polls") == true)
            // Another key has its own places; a request that does not wait needs none.
            #expect(try await client.send(.get, "/v1/events?after=0&wait=1", key: tokens["acme/admin"]).status == .ok)
            #expect(try await client.send(.get, "/v1/events?after=0", key: reader).status == .ok)
            #expect(try await first.status == .ok)
            // The place is free again once the first long poll answered.
            #expect(try await client.send(.get, "/v1/events?after=0&wait=0.1", key: reader).status == .ok)
        }
    }

    @Test func openModeLastsUntilTheFirstKeyIsCreated() async throws {
        try await KeyedApp.withClient(keys: []) { client, _, database in
            #expect(try await client.send(.get, "/v1/annotations", key: nil).status == .ok)
            let (_, key) = KeySecret.make(tenant: .default, role: .admin, name: nil, at: Date())
            let other = try await DatabasePlace.open(database)
            try await other.insert(key)
            await other.close()
            _ = try await client.afterKeyWrites { try await client.send(.get, "/v1/annotations", key: nil) }.problem(.unauthorized)
        }
        // Not open at all when the configuration says so (serve beyond loopback).
        try await KeyedApp.withClient(keys: [], configure: { $0.openWhenNoKeys = false }) { client, _, _ in
            _ = try await client.send(.get, "/v1/annotations", key: nil).problem(.unauthorized)
            #expect(try await client.send(.get, "/healthz", key: nil).status == .ok)
        }
    }

    @Test func everyAnswerCarriesARequestId() async throws {
        try await KeyedApp.withClient(keys: []) { client, _, _ in
            let sent = try await client.send(.get, "/healthz", key: nil, headers: [HTTPField.Name("X-Request-Id")!: "trace-42"])
            #expect(sent.headers[HTTPField.Name("X-Request-Id")!] == "trace-42")
            let made = try await client.send(.get, "/healthz", key: nil, headers: [HTTPField.Name("X-Request-Id")!: "bad id with spaces"])
            #expect(made.headers[HTTPField.Name("X-Request-Id")!].map { UUID(uuidString: $0) != nil } == true)
        }
    }
}

/// The role table beside the contract: every operation that is not a read names its permission,
/// and the table names no operation the contract lacks (a write left out would need any key only).
@Suite(.watchdog) struct OperationAccessTableTests {
    @Test func everyWriteOfTheContractHasItsPermissionAndNothingElseIsListed() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader)]) { client, _, _ in
            let served = try await client.send(.get, "/openapi.json", key: nil)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(served.body.readableBytesView)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var writes: Set<String> = []
            for (template, operations) in paths {
                for (method, operation) in operations {
                    let isPublic = ((operation as? [String: Any])?["security"] as? [Any])?.isEmpty == true
                    guard ["post", "put", "patch", "delete"].contains(method), !isPublic else { continue }
                    writes.insert("\(method.uppercased()) \(template)")
                }
            }
            // A GET is a read unless listed: OsmAnd's query ingests.
            #expect(Set(OperationAccess.permissions.keys.filter { !$0.hasPrefix("GET ") }) == writes)
            #expect(OperationAccess.permissions.filter { $0.key.hasPrefix("GET ") } == ["GET /v1/ingest/osmand": .ingestLocations])
        }
    }
}
