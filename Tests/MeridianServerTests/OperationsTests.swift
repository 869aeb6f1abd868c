import Access
import Annotations
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Storage
import Testing
import TestSupport
import Timeline

/// Metrics by contract route, streams confined to their tenant, graceful shutdown, and the
/// command line's keys and backup, through the real binary where a process is the point.
@Suite(.watchdog) struct OperationsTests {
    @Test func metricsLabelRoutesByTemplateAndCountPerTenant() async throws {
        try await TestApp.withClient { client in
            let created = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":2}}"#)
            _ = try await client.send(.get, "/v1/annotations/\(created.id)")
            _ = try await client.send(.get, "/v1/annotations/0190f3a2-0000-7000-8000-000000000000")
            _ = try await client.postFixes("van-1", [Trace.fix(Trace.origin, 0)])
            _ = try await client.send(.get, "/no/such/path/\(UUID())")
            let response = try await client.send(.get, "/metrics")
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            #expect(text.contains(#"meridian_http_requests_total{route="/v1/annotations/{id}",method="GET",status="200"} 1"#), "\(text.prefix(3_000))")
            #expect(text.contains(#"meridian_http_requests_total{route="/v1/annotations/{id}",method="GET",status="404"} 1"#))
            #expect(text.contains(#"meridian_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
            #expect(!text.contains(created.id) && !text.contains("/no/such/path"))
            #expect(text.contains(#"meridian_annotations_live{tenant="default"} 1"#))
            #expect(text.contains(#"meridian_fixes_ingested_total{tenant="default"} 1"#))
            #expect(text.contains("meridian_sqlite_commit_duration_seconds_count"))
            #expect(text.contains(#"meridian_http_request_duration_seconds_bucket{route="/v1/annotations",method="POST",le="0.0001"}"#))
        }
    }

    @Test(.sqliteFile) func aStreamCarriesOnlyItsTenantsEvents() async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        let store = SQLiteKeyStore(database: try MeridianDatabase.open(path: file.path))
        let (acme, acmeKey) = KeySecret.make(tenant: TenantID("acme")!, role: .admin, name: nil, at: Date())
        let (globex, globexKey) = KeySecret.make(tenant: TenantID("globex")!, role: .admin, name: nil, at: Date())
        try store.insert(acmeKey)
        try store.insert(globexKey)
        var configuration = try await TestApp.configuration()
        configuration.databasePath = file.path
        configuration.eventStreamHeartbeat = .milliseconds(200)
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            for key in [acme, globex] {
                #expect(try await client.send(.post, "/v1/subscriptions", json: TrackingContractTests.everyFix, key: key).status == .created)
            }
            let fixes = Trace.batch([Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(10), 10)])
            #expect(try await client.send(.post, "/v1/devices/car-1/locations", json: fixes, key: acme).status == .ok)
            let acmeStream = try await RawStream.read(port: port, path: "/v1/events/stream?after=0", headers: ["Authorization": "Bearer \(acme)"]) {
                $0.contains("id: 2\n") && $0.contains(": heartbeat")
            }
            let globexStream = try await RawStream.read(port: port, path: "/v1/events/stream?after=0", headers: ["Authorization": "Bearer \(globex)"]) {
                $0.contains(": heartbeat")
            }
            #expect(acmeStream.split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 1", "id: 2"])
            #expect(!globexStream.contains("id: ") && !globexStream.contains("event: "), "\(globexStream)")
            let anonymous = try await RawStream.read(port: port, path: "/v1/events/stream") { $0.contains("\n\n") || $0.contains("\r\n\r\n") }
            #expect(anonymous.hasPrefix("HTTP/1.1 401"))
        }
    }
}
