import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Two `meridian serve` processes on one PostgreSQL database, as a team runs them behind a load
/// balancer: a write acknowledged by one is in the other's next answers (its indexes follow the
/// feed, woken by NOTIFY), conditional writes race across them with one winner, and `kill -9` of
/// one loses nothing it acknowledged while the other goes on. Runs in the PostgreSQL pass.
@Suite(.watchdog, .postgresPass, .serialized)
struct TwoInstanceTests {
    struct Thin: Decodable {
        struct Item: Decodable {
            struct Annotation: Decodable { var id: String }
            var type: String
            var annotation: Annotation?
            var count: Int?
        }
        var items: [Item]
    }
    struct Changes: Decodable {
        struct Change: Decodable { var sequence: Int; var id: String; var type: String }
        var changes: [Change]
    }

    /// Both servers on a fresh database, each with its own client connection.
    static func withTwoInstances(
        arguments: [String] = [], _ body: @escaping @Sendable (TestClient, TestClient, _ a: ServerProcess, _ b: ServerProcess) async throws -> Void
    ) async throws {
        let place = try await TestEngine.postgres.freshPlace()
        let a = try await ServerProcess.start(database: place, arguments: arguments)
        defer { a.kill() }
        let b = try await ServerProcess.start(database: place, arguments: arguments)
        defer { b.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: a.port) { clientA in
            try await TestClient.withClient(host: "127.0.0.1", port: b.port) { clientB in
                try await body(clientA, clientB, a, b)
            }
        }
    }

    static func pin(_ index: Int) -> String {
        #"{"coordinate":{"latitude":\#(-60 + Double(index)),"longitude":\#(-170 + 3 * Double(index))},"title":"pin \#(index)"}"#
    }

    /// A thin request at zoom 16 around pin `index`: it shows that pin alone, as an annotation.
    static func thinAround(_ index: Int) -> String {
        #"{"viewport":{"size":{"width":256,"height":256},"center":{"latitude":\#(-60 + Double(index)),"longitude":\#(-170 + 3 * Double(index))},"zoomLevel":16}}"#
    }

    @Test func aWriteOnOneInstanceIsInTheOthersNextThinAnswers() async throws {
        try await Self.withTwoInstances { a, b, _, _ in
            var delays: [Duration] = []
            for index in 0..<100 {
                let created = try await a.execute(.request(.post, "/v1/annotations", json: Self.pin(index)))
                #expect(created.status == .created)
                let id = try created.decode(WireAnnotation.self).id
                let acknowledged = ContinuousClock.now
                // Ask B until its answer holds the write (or 10 s pass: a failure, reported below).
                while ContinuousClock.now - acknowledged < .seconds(10) {
                    let thin = try await b.execute(.request(.post, "/v1/annotations/thin", json: Self.thinAround(index))).decode(Thin.self)
                    if thin.items.contains(where: { $0.annotation?.id == id }) { break }
                }
                delays.append(ContinuousClock.now - acknowledged)
            }
            delays.sort()
            let p99 = delays[98], p50 = delays[49]
            // The 100 ms p99 target is measured by make bench-postgres on a quiet machine; here,
            // beside every other suite, each write must reach B, and promptly.
            print("write on A → thin answer on B: p50 \(p50), p99 \(p99), max \(delays[99]) over 100 writes")
            #expect(delays[99] < .seconds(10), "a write on A never reached B's thin answer (p99 \(p99))")
            // B's whole-world answer counts every write once.
            let world = #"{"viewport":{"size":{"width":1024,"height":1024},"center":{"latitude":0,"longitude":0},"zoomLevel":2}}"#
            let answer = try await b.execute(.request(.post, "/v1/annotations/thin", json: world)).decode(Thin.self)
            #expect(answer.items.reduce(0) { $0 + ($1.count ?? 1) } == 100)
        }
    }

    @Test func aLongPollOnOneInstanceWakesForAWriteOnTheOther() async throws {
        try await Self.withTwoInstances { a, b, _, _ in
            _ = try await a.execute(.request(.post, "/v1/annotations", json: Self.pin(0)))
            let start = ContinuousClock.now
            async let polled = b.execute(.request(.get, "/v1/annotations/changes?after=1&wait=20"))
            try await Task.sleep(for: .milliseconds(300))
            let created = try await a.execute(.request(.post, "/v1/annotations", json: Self.pin(1))).decode(WireAnnotation.self)
            let changes = try await polled.decode(Changes.self).changes
            #expect(changes.map(\.id) == [created.id] && changes.map(\.sequence) == [2])
            #expect(ContinuousClock.now - start < .seconds(10), "woken by the write, not by the 20 s timeout")
        }
    }

    @Test func ifMatchRacesAcrossInstancesHaveOneWinner() async throws {
        try await Self.withTwoInstances { a, b, processA, processB in
            let id = try await a.execute(.request(.post, "/v1/annotations", json: Self.pin(0))).decode(WireAnnotation.self).id
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for task in 0..<12 {
                    group.addTask {
                        let headers: HTTPFields = [.contentType: "application/merge-patch+json", .ifMatch: "\"1\""]
                        let request = TestClient.Request.request(.patch, "/v1/annotations/\(id)", json: #"{"title":"task \#(task)"}"#, headers: headers)
                        // Each on its own connection, alternating instances.
                        return try await TestClient.withClient(host: "127.0.0.1", port: (task.isMultiple(of: 2) ? processA : processB).port) {
                            try await $0.execute(request).status
                        }
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1 && statuses.filter { $0 == .preconditionFailed }.count == 11, "\(statuses)")
            let read = try await b.execute(.request(.get, "/v1/annotations/\(id)"))
            #expect(read.headers[.eTag] == "\"2\"")
        }
    }

    /// Writers on both instances, each posting an annotation and a fix of its own device in turn;
    /// A is killed with SIGKILL while its writes are in flight. B answers for every annotation and
    /// event anyone acknowledged, the feed and the event log stay 1, 2, 3… without a hole (A's
    /// transactions that never committed left none), and B keeps taking writes.
    @Test func killingOneInstanceMidIngestLosesNothingAcknowledged() async throws {
        try await Self.withTwoInstances { a, b, processA, processB in
            #expect(try await a.execute(.request(.post, "/v1/subscriptions", json: Trace.everyFix)).status == .created)
            let acknowledged = Acknowledged()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (port, name) in [(processA.port, "a"), (processB.port, "b")] {
                    group.addTask {
                        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                            for index in 0..<150 {
                                let pin = #"{"externalId":"\#(name)-\#(index)","coordinate":{"latitude":\#(Double(index) / 10),"longitude":1}}"#
                                guard let created = try? await client.execute(.request(.post, "/v1/annotations", json: pin)) else { return }
                                if created.status == .created {
                                    let id = try created.decode(WireAnnotation.self).id
                                    acknowledged.ids.withLock { $0.append(id) }
                                }
                                let fix = Trace.batch([Trace.fix(Trace.at(Double(index) * 100), Double(index))])
                                guard let ingested = try? await client.execute(.request(.post, "/v1/devices/dev-\(name)/locations", json: fix)) else { return }
                                if ingested.status == .ok {
                                    let events = try ingested.decode(WireIngest.self).events.map(\.id)
                                    acknowledged.events.withLock { $0 += events }
                                }
                            }
                        }
                    }
                }
                while acknowledged.ids.withLock({ $0.count }) < 60 { try await Task.sleep(for: .milliseconds(5)) }
                await processA.stop()
                try await group.waitForAll()
            }
            let (ids, eventIds) = (acknowledged.ids.withLock { $0 }, acknowledged.events.withLock { $0 })
            #expect(ids.count >= 150 && eventIds.count >= 150, "B went on after A died: \(ids.count) annotations, \(eventIds.count) events")
            for id in ids {
                #expect(try await b.execute(.request(.get, "/v1/annotations/\(id)")).status == .ok, "acknowledged \(id) is lost")
            }
            let changes = try await b.execute(.request(.get, "/v1/annotations/changes?after=0&limit=1000")).decode(Changes.self).changes
            #expect(changes.map(\.sequence) == Array(1...changes.count), "the feed has a hole")
            #expect(Set(changes.map(\.id)).isSuperset(of: ids))
            let events = try await b.execute(.request(.get, "/v1/events?after=0&limit=1000")).decode(WireEventPage.self).events
            #expect(events.map(\.sequence) == Array(1...Int64(events.count)), "the event log has a hole")
            #expect(Set(events.map(\.id)).isSuperset(of: eventIds), "an acknowledged event is lost")
        }
    }
}

/// Ids the writers of a test had acknowledged, shared across their tasks.
private final class Acknowledged: Sendable {
    let ids = Mutex<[String]>([])
    let events = Mutex<[String]>([])
}
