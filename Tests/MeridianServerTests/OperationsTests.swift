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

    @Test func aStreamCarriesOnlyItsTenantsEvents() async throws {
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

    @Test func sigtermEndsStreamsWithALastEventAndExitsZero() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let server = try await ServerProcess.start(database: database.path)
        defer { server.kill() }
        let created = try await TestClient.withClient(host: "127.0.0.1", port: server.port) { client in
            try await client.execute(.request(.post, "/v1/annotations", json: #"{"coordinate":{"latitude":1,"longitude":2}}"#)).status
        }
        #expect(created == .created)
        var signalled = false
        let text = try await RawStream.read(port: server.port, path: "/v1/events/stream") { text in
            if !signalled && text.contains("retry: 1000") {
                signalled = true
                _ = Foundation.kill(server.process.processIdentifier, SIGTERM)
            }
            return text.contains("event: shutdown")
        }
        #expect(text.contains("event: shutdown\ndata: {\"reason\":"), "\(text)")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { server.process.waitUntilExit(); done.resume() }
        }
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
    }

    @Test func keysAreMadeListedAndRevokedFromTheCommandLineAndBackupsAreWholeDatabases() async throws {
        let database = TemporaryDatabase(), copy = TemporaryDatabase()
        defer { database.cleanUp(); copy.cleanUp() }
        let created = try await Self.meridian(["keys", "create", "--tenant", "acme", "--role", "feed", "--name", "relay", "--database", database.path])
        let token = try #require(created.stdout.split(separator: "\n").first.map(String.init))
        let id = try #require(KeySecret.parse(Substring(token))?.id)
        let listed = try await Self.meridian(["keys", "list", "--database", database.path]).stdout
        #expect(listed.contains("\(id)\tacme\tfeed\trelay\t") && !listed.contains(token.split(separator: "_").last!))
        #expect(try await Self.meridian(["keys", "create", "--tenant", "a b", "--role", "feed", "--database", database.path]).status != 0)
        #expect(try await Self.meridian(["keys", "create", "--role", "owner", "--database", database.path]).status != 0)
        #expect(try await Self.meridian(["keys", "revoke", id, "--database", database.path]).stdout.contains("revoked"))
        let revoked = try await Self.meridian(["keys", "list", "--database", database.path]).stdout.split(separator: "\n").first { $0.hasPrefix(id) }
        #expect(revoked.flatMap { $0.split(separator: "\t").last }.map { $0.hasPrefix("20") } == true, "a revocation time: \(revoked ?? "")")

        _ = try await Self.meridian(["import", try Self.file(ImportCommandTests.valid), "--tenant", "acme", "--database", database.path])
        let backup = try await Self.meridian(["backup", copy.path, "--database", database.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        let restored = try await SQLiteAnnotationStore.open(on: MeridianDatabase.open(path: copy.path), tenant: TenantID("acme")!)
        #expect(try await restored.annotations(matching: AnnotationQuery()).annotations.count == 2)
        #expect(try SQLiteKeyStore(database: MeridianDatabase.open(path: copy.path)).key(id: id)?.revokedAt != nil)
        #expect(try await Self.meridian(["backup", copy.path, "--database", database.path]).status != 0)  // never overwrites
        let export = try await Self.meridian(["export", "--tenant", "acme", "--database", database.path]).stdout
        #expect(export.hasPrefix(#"{"features":["#) && export.contains("London"))
    }

    /// A temporary file holding `text`.
    static func file(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("operations-\(UUID()).geojson")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    /// Runs the binary off Swift's cooperative pool (tests running beside it need its two threads).
    static func meridian(_ arguments: [String]) async throws -> ImportCommandTests.Run {
        await ProcessRun.run(try ServerProcess.executable(), arguments)
    }
}
