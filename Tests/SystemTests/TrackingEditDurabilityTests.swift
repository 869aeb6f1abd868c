import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Tracking writes that change state and emit events are one transaction each: after a `kill -9`
/// of the `meridian serve` process straight after the answer, the state and its events are there,
/// once, when the next process opens the same SQLite file.
@Suite(.watchdog, .sqliteFile) struct TrackingEditDurabilityTests {
    /// The enter and exit of a crossing commit with the fix that found them, in one transaction:
    /// after a `kill -9` straight after the answer both are there, once, and the client's retry of
    /// that fix is a duplicate that adds nothing.
    @Test func aCrossingSurvivesSIGKILLWholeAndOnce() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let fixes = (0..<4).map { Trace.fix(Trace.at(Double($0) * 4_166), Double($0) * 300) }
        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }
        let subscription = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            let created = try await client.execute(.request(.post, "/v1/subscriptions", json: Trace.crossedCircle(#","detect":["cross"]"#)))
            #expect(created.status == .created)
            #expect(try await client.execute(.request(.post, "/v1/devices/van-3/locations", json: Trace.batch(Array(fixes[0..<3])))).status == .ok)
            let crossing = try await client.execute(.request(.post, "/v1/devices/van-3/locations", json: Trace.batch([fixes[3]])))
            #expect(try crossing.decode(WireIngest.self).events.map(\.type) == ["enter", "exit"])
            return try created.decode(WireSubscription.self).id
        }
        await first.stop()  // SIGKILL, straight after the answer

        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            let retry = try await client.execute(.request(.post, "/v1/devices/van-3/locations", json: Trace.batch([fixes[3]])))
            let answer = try retry.decode(WireIngest.self)
            #expect(answer.statuses == ["duplicate"] && answer.events.isEmpty)
            let events = try await client.execute(.request(.get, "/v1/subscriptions/\(subscription)/events?after=0")).decode(WireEventPage.self).events
            #expect(events.map(\.type) == ["enter", "exit"] && events.allSatisfy { $0.interpolated == true })
            #expect(events.map(\.sequence) == [1, 2])
        }
    }

    /// The edit, the state it flips and its events are one transaction: after a `kill -9` straight
    /// after the answer, the region is where it was moved, its exit is in the log once, and the
    /// device is outside (its next fix where it stands emits nothing).
    @Test func anEditSurvivesSIGKILLWithItsEvents() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }
        let id = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            let created = try await client.execute(.request(.post, "/v1/subscriptions", json: #"{"type":"region","maxLocationAge":null,"region":\#(Trace.circle(at: 0))}"#))
            let id = try created.decode(WireSubscription.self).id
            #expect(try await client.execute(.request(.post, "/v1/devices/van-5/locations", json: Trace.batch([Trace.fix(Trace.at(0), 0)]))).status == .ok)
            let moved = try await client.execute(.request(.patch, "/v1/subscriptions/\(id)", json: #"{"region":\#(Trace.circle(at: 2_000))}"#))
            #expect(try moved.decode(WireSubscriptionChange.self).events.map(\.type) == ["exit"])
            return id
        }
        await first.stop()  // SIGKILL, straight after the answer

        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            let events = try await client.execute(.request(.get, "/v1/subscriptions/\(id)/events?after=0")).decode(WireEventPage.self).events
            #expect(events.map(\.type) == ["enter", "exit"] && events.last?.reason == "regionChanged")
            let answer = try await client.execute(.request(.post, "/v1/devices/van-5/locations", json: Trace.batch([Trace.fix(Trace.at(0), 60)])))
            #expect(try answer.decode(WireIngest.self).events.isEmpty)
        }
    }
}
