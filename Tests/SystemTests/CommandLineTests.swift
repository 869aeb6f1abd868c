import Access
import Annotations
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Storage
import Testing
import Timeline
import TestSupport

/// The `meridian` binary as an operator runs it: SIGTERM ends event streams with a last event and
/// exits 0; `keys`, `backup` and `export` from the command line.
@Suite(.watchdog, .sqliteFile) struct CommandLineTests {
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

    /// Retention's flags are read before the server starts: a bad one stops it, naming the flag.
    @Test func badRetentionFlagsStopTheServerNamingTheFlag() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        for (flag, value) in [("--keep-fixes", "1y"), ("--keep-events", "soon"), ("--retention-rate", "0")] {
            let run = try await Self.meridian(["serve", "--port", "0", "--database", database.path, flag, value])
            #expect(run.status == 64 && run.stderr.contains(flag), "\(flag) \(value): \(run.status) \(run.stderr)")
        }
    }

    /// A temporary file holding `text`.
    static func file(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("operations-\(UUID()).geojson")
        try Data(text.utf8).write(to: file)
        return file.path
    }

    /// Runs the binary off Swift's cooperative pool (tests running beside it need its two threads).
    static func meridian(_ arguments: [String]) async throws -> ProcessRun.Result {
        await ProcessRun.run(try ServerProcess.executable(), arguments)
    }
}
