import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Acknowledged writes survive `kill -9`: the real `meridian` binary on a SQLite file is killed
/// right after its last answer, restarted on the same file, and asked for everything it acknowledged.
@Suite(.watchdog, .sqliteFile) struct DurabilityTests {
    @Test func acknowledgedWritesSurviveSIGKILL() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }

        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }  // also when the test fails half-way: a stray server keeps `swift test` waiting
        // id → the version the server acknowledged, and the id it acknowledged deleting.
        let (acknowledged, deleted) = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            var acknowledged: [String: Int] = [:]
            for index in 0..<40 {
                let body = #"{"externalId":"ack-\#(index)","coordinate":{"latitude":\#(Double(index) / 2),"longitude":\#(-Double(index))},"title":"pin \#(index)"}"#
                let response = try await client.execute(.request(.post, "/v1/annotations", json: body, headers: [.idempotencyKey: "key-\(index)"]))
                #expect(response.status == .created)
                acknowledged[try response.decode(WireAnnotation.self).id] = 1
            }
            let ids = acknowledged.keys.sorted()
            let patch = try await client.execute(.request(.patch, "/v1/annotations/\(ids[3])", json: #"{"title":"patched"}"#, headers: [.contentType: "application/merge-patch+json"]))
            #expect(patch.status == .ok)
            acknowledged[ids[3]] = 2
            #expect(try await client.execute(.request(.delete, "/v1/annotations/\(ids[5])")).status == .noContent)
            acknowledged[ids[5]] = nil
            return (acknowledged, ids[5])
        }
        await first.stop()  // SIGKILL, straight after the last acknowledgement

        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            for (id, version) in acknowledged {
                let response = try await client.execute(.request(.get, "/v1/annotations/\(id)"))
                #expect(response.status == .ok, "annotation \(id) was acknowledged but is lost")
                #expect(response.headers[.eTag] == "\"\(version)\"")
            }
            #expect(try await client.execute(.request(.get, "/v1/annotations/\(deleted)")).status == .gone)
            // The idempotency keys were stored with their writes: a retry after the crash replays.
            let retry = try await client.execute(.request(.post, "/v1/annotations", json: #"{"externalId":"ack-0","coordinate":{"latitude":0.0,"longitude":-0.0},"title":"pin 0"}"#, headers: [.idempotencyKey: "key-0"]))
            #expect(retry.status == .created && retry.headers[.idempotentReplayed] == "true")
            #expect(try retry.decode(WireAnnotation.self).externalId == "ack-0")
        }
    }
}
