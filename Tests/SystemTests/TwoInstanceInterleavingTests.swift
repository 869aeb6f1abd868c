import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Eight writers interleaved over two instances for 30 s: annotation creates and deletes and fix
/// batches, each request to the other instance than the one before. Two live readers (one per
/// instance) follow the change feed and the event log with long polls meanwhile. Afterwards both
/// logs are gap-free from 1 with nothing twice, hold every acknowledged write, the live readers saw
/// exactly the final logs (no entry became visible after a later one was read), and readers resumed
/// at random cursors with random page sizes see every later entry once. Runs in the PostgreSQL pass.
@Suite(.watchdog, .postgresPass, .serialized)
struct TwoInstanceInterleavingTests {
    static let writers = 8
    static let duration: Duration = .seconds(30)

    struct Change: Decodable, Hashable { var sequence: Int64; var id: String; var type: String; var version: Int }
    struct ChangePage: Decodable { var changes: [Change]; var nextAfter: Int64 }

    /// What the writers had acknowledged: (id, change type) and event ids, and fixes per device.
    final class Acknowledged: Sendable {
        let changes = Mutex<Set<String>>([])
        let events = Mutex<Set<String>>([])
        let fixes = Mutex<[String: Int]>([:])
    }

    /// Set when the writers are done.
    final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// Entries of `path` (a feed answering `changes` or `events` and `nextAfter`) after `after`, `limit` at a time, to the end.
    static func read<Entry: Sendable>(
        _ client: TestClient, _ path: String, after: Int64, limit: Int, wait: Int = 0, page: @escaping @Sendable (TestClient.Response) throws -> ([Entry], Int64)
    ) async throws -> [Entry] {
        var (entries, cursor) = ([Entry](), after)
        while true {
            let response = try await client.execute(.request(.get, "\(path)?after=\(cursor)&limit=\(limit)&wait=\(wait)"))
            #expect(response.status == .ok)
            let (more, next) = try page(response)
            entries += more
            if more.isEmpty { return entries }
            cursor = next
        }
    }

    static func changes(_ response: TestClient.Response) throws -> ([Change], Int64) {
        let page = try response.decode(ChangePage.self)
        return (page.changes, page.nextAfter)
    }

    static func events(_ response: TestClient.Response) throws -> ([WireEvent], Int64) {
        let page = try response.decode(WireEventPage.self)
        return (page.events, page.nextAfter)
    }

    /// Follows `path` with long polls until `done` and the feed has nothing more; every entry's sequence as read.
    static func follow(_ port: Int, _ path: String, done: Flag, sequences: @escaping @Sendable (TestClient.Response) throws -> ([Int64], Int64)) async throws -> [Int64] {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            var (seen, cursor) = ([Int64](), Int64(0))
            while true {
                let finished = done.value.withLock { $0 }
                let response = try await client.execute(.request(.get, "\(path)?after=\(cursor)&limit=50&wait=\(finished ? 0 : 1)"))
                #expect(response.status == .ok)
                let (more, next) = try sequences(response)
                seen += more
                if more.isEmpty, finished { return seen }
                cursor = next
            }
        }
    }

    @Test func eightWritersOverTwoInstancesFor30sLeaveGapFreeLogsHoldingEveryAcknowledgedWrite() async throws {
        try await TwoInstanceTests.withTwoInstances { a, b, processA, processB in
            #expect(try await a.execute(.request(.post, "/v1/subscriptions", json: Trace.everyFix)).status == .created)
            let acknowledged = Acknowledged(), done = Flag()
            let ports = [processA.port, processB.port]
            let live = try await withThrowingTaskGroup(of: (String, [Int64]).self) { group in
                // Live readers: the feed on A, the event log on B.
                group.addTask { ("feed", try await Self.follow(ports[0], "/v1/annotations/changes", done: done) { body in
                    let (changes, next) = try Self.changes(body)
                    return (changes.map(\.sequence), next)
                }) }
                group.addTask { ("events", try await Self.follow(ports[1], "/v1/events", done: done) { body in
                    let (events, next) = try Self.events(body)
                    return (events.map(\.sequence), next)
                }) }
                group.addTask {
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        for writer in 0..<Self.writers {
                            writers.addTask { try await Self.write(writer, ports: ports, acknowledged: acknowledged) }
                        }
                        try await writers.waitForAll()
                    }
                    done.value.withLock { $0 = true }
                    return ("writers", [])
                }
                var live: [String: [Int64]] = [:]
                for try await (name, sequences) in group { live[name] = sequences }
                return live
            }

            let feed = try await Self.read(b, "/v1/annotations/changes", after: 0, limit: 1000, page: Self.changes)
            #expect(feed.map(\.sequence) == Array(1...Int64(feed.count)), "the feed is gap-free from 1, nothing twice")
            let stored = Set(feed.map { "\($0.id) \($0.type)" })
            let changes = acknowledged.changes.withLock { $0 }
            #expect(changes.count > 100 && changes.isSubset(of: stored), "\(changes.subtracting(stored).count) acknowledged changes missing")
            #expect(live["feed"] == feed.map(\.sequence), "the live reader on A saw the feed B reads, each entry once")

            let log = try await Self.read(a, "/v1/events", after: 0, limit: 1000, page: Self.events)
            #expect(log.map(\.sequence) == Array(1...Int64(log.count)), "the event log is gap-free from 1, nothing twice")
            let events = acknowledged.events.withLock { $0 }
            #expect(events.count > 100 && events.isSubset(of: Set(log.map(\.id))), "acknowledged events missing")
            let fixes = acknowledged.fixes.withLock { $0 }
            #expect(Dictionary(grouping: log, by: \.deviceId).mapValues(\.count) == fixes, "one event per accepted fix")
            #expect(live["events"] == log.map(\.sequence), "the live reader on B saw the log A reads, each entry once")

            // Cursors resumed at random points, random page sizes, either instance.
            var random = SeededGenerator(seed: 38)
            for round in 0..<20 {
                let client = round.isMultiple(of: 2) ? a : b
                let after = Int64(random.next() % UInt64(feed.count)), limit = 1 + Int(random.next() % 300)
                let resumed = try await Self.read(client, "/v1/annotations/changes", after: after, limit: limit, page: Self.changes)
                #expect(resumed == Array(feed[Int(after)...]), "the feed resumed after \(after), \(limit) a page")
                let from = Int64(random.next() % UInt64(log.count))
                let rest = try await Self.read(client, "/v1/events", after: from, limit: limit, page: Self.events)
                #expect(rest.map(\.id) == log[Int(from)...].map(\.id), "the log resumed after \(from), \(limit) a page")
            }
        }
    }

    /// One writer: until the time is up, a create, sometimes a delete of its last, and a batch of
    /// 3 fixes of its own device, each request on the other instance than the one before.
    static func write(_ writer: Int, ports: [Int], acknowledged: Acknowledged) async throws {
        try await TestClient.withClient(host: "127.0.0.1", port: ports[0]) { first in
            try await TestClient.withClient(host: "127.0.0.1", port: ports[1]) { second in
                let clients = [first, second], device = "w\(writer)"
                let end = ContinuousClock.now + duration
                var (turn, step, created) = (writer, 0, [String]())
                func next() -> TestClient {
                    turn += 1
                    return clients[turn % 2]
                }
                while ContinuousClock.now < end {
                    step += 1
                    let pin = #"{"coordinate":{"latitude":\#(Double(writer) - 40),"longitude":\#(Double(step % 3000) / 20 - 75)},"title":"w\#(writer) \#(step)"}"#
                    let response = try await next().execute(.request(.post, "/v1/annotations", json: pin))
                    #expect(response.status == .created)
                    let id = try response.decode(WireAnnotation.self).id
                    created.append(id)
                    acknowledged.changes.withLock { _ = $0.insert("\(id) created") }
                    if step.isMultiple(of: 4), let last = created.popLast() {
                        let deleted = try await next().execute(.request(.delete, "/v1/annotations/\(last)"))
                        #expect(deleted.status == .noContent)
                        acknowledged.changes.withLock { _ = $0.insert("\(last) deleted") }
                    }
                    let fixes = (0..<3).map { index in Trace.fix(Trace.at(Double(step * 3 + index) * 10), Double(step * 3 + index)) }
                    let ingested = try await next().execute(.request(.post, "/v1/devices/\(device)/locations", json: Trace.batch(fixes)))
                    #expect(ingested.status == .ok)
                    let answer = try ingested.decode(WireIngest.self)
                    #expect(answer.statuses == ["accepted", "accepted", "accepted"])
                    acknowledged.events.withLock { $0.formUnion(answer.events.map(\.id)) }
                    acknowledged.fixes.withLock { $0[device, default: 0] += answer.statuses.filter { $0 == "accepted" }.count }
                }
            }
        }
    }
}
