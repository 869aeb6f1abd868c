import Access
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import Storage
import Testing
import Timeline
import TestSupport

/// A key revoked while its event stream and long poll are open: both end within about a second
/// (the stream with a last `event: revoked`, the long poll with 401), whoever revoked it.
@Suite(.watchdog) struct RevocationTests {
    @Test func aRevokedKeysStreamAndLongPollEnd() async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        let place = TestEngine.contract == .sqlite ? file.path : try await TestEngine.contract.freshPlace(persistent: true)
        let storage = try await DatabasePlace.open(place)
        let (token, key) = KeySecret.make(tenant: TenantID("acme")!, role: .reader, name: nil, at: Date())
        try await storage.insert(key)
        await storage.close()
        var configuration = ServerConfiguration.testing
        configuration.databasePath = place
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let poll = Task { try await client.send(.get, "/v1/events?wait=20", key: token) }
            var revokedAt: ContinuousClock.Instant?
            let text = try await RawStream.read(port: port, path: "/v1/events/stream", headers: ["Authorization": "Bearer \(token)"]) { text in
                if revokedAt == nil, text.contains("retry: 1000") {
                    // Another process's revocation (`meridian keys revoke`), through its own connection.
                    let other = try await DatabasePlace.open(place)
                    #expect(try await other.revokeKey(id: key.id, at: Date()))
                    await other.close()
                    revokedAt = .now
                }
                return text.contains("event: revoked")
            }
            let ended = ContinuousClock.now - (revokedAt ?? .now)
            #expect(text.contains("event: revoked\ndata: {"), "\(text)")
            // Checked every 250 ms; a loaded test machine may take longer than the second it needs.
            #expect(ended < .seconds(5), "the stream ended \(ended) after the revocation")
            let answer = try await poll.value
            _ = try answer.problem(.unauthorized)
            // And nothing more is served to it.
            _ = try await client.send(.get, "/v1/events/stream", key: token).problem(.unauthorized)
        }
    }
}
