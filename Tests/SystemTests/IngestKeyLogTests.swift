import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// The apps that cannot send `Authorization` put the key where the request log could see it (the
/// Basic password, `key` or `access_token` in the query): the real binary, logging everything at
/// `debug` in both formats, writes a line for each such request and the secret in none.
@Suite(.watchdog, .sqliteFile) struct IngestKeyLogTests {
    @Test(arguments: ["text", "json"]) func theKeyNeverReachesTheLog(format: String) async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let created = try await CommandLineTests.meridian(["keys", "create", "--tenant", "acme", "--role", "feed", "--database", database.path])
        let token = try #require(created.stdout.split(separator: "\n").first.map(String.init))
        let secret = try #require(token.split(separator: "_").last.map(String.init))
        let log = database.path + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }

        let server = try await ServerProcess.start(database: database.path, arguments: ["--log-level", "debug", "--log-format", format], logFile: log)
        defer { server.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: server.port) { client in
            let basic = "Basic " + Data("jane:\(token)".utf8).base64EncodedString()
            let osmAnd = "/v1/ingest/osmand?id=van&lat=60&lon=30&timestamp=1377177267"
            let requests: [TestClient.Request] = [
                .request(.get, osmAnd + "&key=\(token)"),
                .request(.post, osmAnd + "&access_token=\(token)"),
                .request(.get, osmAnd + "&key=mrd_\(secret)_wrong"),  // refused: its text is not logged either
                .request(.post, "/v1/ingest/owntracks", json: #"{"_type":"location","lat":1,"lon":2,"tst":1441984413}"#,
                         headers: [.authorization: basic, HTTPField.Name("X-Limit-D")!: "phone"]),
                .request(.post, "/v1/ingest/overland?access_token=\(token)",
                         json: #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[30,60]},"properties":{"timestamp":"2024-01-01T00:00:00Z","device_id":"bike"}}]}"#),
            ]
            var statuses: [Int] = []
            for request in requests { statuses.append(try await client.execute(request).status.code) }
            #expect(statuses == [200, 200, 401, 200, 200])
        }
        await server.stop()
        let text = try String(contentsOfFile: log, encoding: .utf8)
        // The request lines are there (the test reads a real log), the secret is not.
        #expect(text.components(separatedBy: "/v1/ingest/osmand").count - 1 >= 3, "\(text)")
        #expect(text.contains("/v1/ingest/owntracks") && text.contains("/v1/ingest/overland"), "\(text)")
        #expect(!text.contains(secret), "the key's secret is in the log:\n\(text)")
        #expect(!text.contains(Data("jane:\(token)".utf8).base64EncodedString()))
    }
}
