import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// Tracking across two instances on one PostgreSQL: one device's fixes, alternating between the
/// instances, give the events one instance gives for the same fixes; a long poll on one wakes for
/// an ingest on the other. Runs in the PostgreSQL pass.
@Suite(.watchdog, .postgresPass, .serialized)
struct TwoInstanceTrackingTests {
    /// Every accepted fix is an event, and a 300 m circle 1 km east of the start is entered and left.
    static let subscriptions = [
        Trace.everyFix,
        #"{"type":"region","name":"depot","region":{"circle":{"center":{"latitude":\#(Trace.at(1_000).latitude),"longitude":\#(Trace.at(1_000).longitude)},"radius":300}},"maxLocationAge":null}"#,
    ]
    /// 3 km east in 100 m steps, 10 s apart, with one late fix and one repeated.
    static let fixes: [String] = {
        var fixes = (0..<30).map { Trace.fix(Trace.at(Double($0) * 100), Double($0) * 10) }
        fixes.insert(Trace.fix(Trace.at(250), 25), at: 12)  // late: older than the one before it
        fixes.insert(fixes[5], at: 20)  // a duplicate
        return fixes
    }()

    /// What an event says, without what differs between runs (ids, when it was recorded).
    struct Outcome: Equatable, CustomStringConvertible {
        var sequence: Int64, subscription: Int, type: String, reason: String?, at: String
        var description: String { "\(sequence) \(subscription) \(type) \(reason ?? "-") \(at)" }
    }

    static func events(_ client: TestClient, subscriptionIds: [String]) async throws -> [Outcome] {
        let page = try await client.execute(.request(.get, "/v1/events?after=0&limit=1000")).decode(WireEventPage.self)
        return page.events.map { event in
            Outcome(sequence: event.sequence, subscription: subscriptionIds.firstIndex(of: event.subscriptionId) ?? -1,
                    type: event.type, reason: event.reason, at: event.location.timestamp)
        }
    }

    static func subscribe(_ client: TestClient) async throws -> [String] {
        var ids: [String] = []
        for body in subscriptions {
            let response = try await client.execute(.request(.post, "/v1/subscriptions", json: body))
            #expect(response.status == .created)
            ids.append(try response.decode(WireSubscription.self).id)
        }
        return ids
    }

    static func post(_ fix: String, to client: TestClient) async throws {
        let response = try await client.execute(.request(.post, "/v1/devices/van-7/locations", json: Trace.batch([fix])))
        #expect(response.status == .ok)
    }

    @Test func fixesAlternatingBetweenInstancesGiveTheEventsOfOne() async throws {
        // One instance, the reference.
        let alone = try await ServerProcess.start(database: try await TestEngine.postgres.freshPlace())
        defer { alone.kill() }
        let expected = try await TestClient.withClient(host: "127.0.0.1", port: alone.port) { client in
            let ids = try await Self.subscribe(client)
            for fix in Self.fixes { try await Self.post(fix, to: client) }
            return try await Self.events(client, subscriptionIds: ids)
        }
        #expect(expected.contains { $0.type == "enter" } && expected.contains { $0.type == "exit" }, "\(expected)")
        // Two, taking turns: subscriptions made on A, fixes alternating, events read on B.
        try await TwoInstanceTests.withTwoInstances { a, b, _, _ in
            let ids = try await Self.subscribe(a)
            for (index, fix) in Self.fixes.enumerated() { try await Self.post(fix, to: index.isMultiple(of: 2) ? a : b) }
            let outcomes = try await Self.events(b, subscriptionIds: ids)
            #expect(outcomes == expected, "two instances: \(outcomes)\none: \(expected)")
            #expect(outcomes.map(\.sequence) == Array(1...Int64(outcomes.count)))
        }
    }

    @Test func aLongPollOnOneInstanceWakesForAnIngestOnTheOther() async throws {
        try await TwoInstanceTests.withTwoInstances { a, b, _, _ in
            _ = try await Self.subscribe(a)
            let start = ContinuousClock.now
            async let polled = b.execute(.request(.get, "/v1/events?after=0&wait=20"))
            try await Task.sleep(for: .milliseconds(300))
            try await Self.post(Self.fixes[0], to: a)
            let page = try await polled.decode(WireEventPage.self)
            #expect(page.events.first?.sequence == 1 && page.events.first?.deviceId == "van-7")
            #expect(ContinuousClock.now - start < .seconds(10), "woken by the ingest, not by the 20 s timeout")
        }
    }
}

/// Webhooks with two instances delivering: one claim at a time per webhook, so the receiver gets
/// each event once, in order, never two at once; when the claim's holder dies, the other instance
/// takes over within the claim's lease and nothing is lost.
@Suite(.watchdog, .postgresPass, .serialized)
struct TwoInstanceWebhookTests {
    /// The receiver answers each request after this long: requests sent one at a time arrive at least this far apart.
    static let answerDelay = Duration.milliseconds(30)

    @Test func twoInstancesDeliverEachEventOnceInOrderAndOneTakesOverWhenTheOtherDies() async throws {
        try await WebhookReceiver.run(script: { _, _ in .init(delay: Self.answerDelay) }) { receiver in
            let arguments = ["--webhook-allow-cidr", "127.0.0.0/8", "--webhook-lease", "8", "--webhook-timeout", "4"]
            try await TwoInstanceTests.withTwoInstances(arguments: arguments) { a, b, processA, _ in
                #expect(try await a.execute(.request(.post, "/v1/subscriptions", json: Trace.everyFix)).status == .created)
                #expect(try await a.execute(.request(.post, "/v1/webhooks", json: #"{"url":"\#(receiver.url)"}"#)).status == .created)
                func post(_ index: Int, to client: TestClient) async throws {
                    let fix = Trace.batch([Trace.fix(Trace.at(Double(index) * 100), Double(index))])
                    #expect(try await client.execute(.request(.post, "/v1/devices/van-9/locations", json: fix)).status == .ok)
                }
                for index in 0..<30 { try await post(index, to: index.isMultiple(of: 2) ? a : b) }
                let first = try await receiver.wait { $0.compactMap(\.sequence).contains(30) }
                #expect(first.compactMap(\.sequence) == Array(1...30), "each event once, in order")
                let gaps = zip(first, first.dropFirst()).map { $1.at - $0.at }
                #expect(gaps.allSatisfy { $0 >= Self.answerDelay - .milliseconds(5) }, "two requests at once: \(gaps.min() ?? .zero)")

                // Whichever instance held the claim, A dies; B delivers what comes next.
                await processA.stop()
                for index in 30..<40 { try await post(index, to: b) }
                let all = try await receiver.wait(timeout: .seconds(40)) { $0.compactMap(\.sequence).contains(40) }
                let sequences = all.compactMap(\.sequence)
                #expect(Set(sequences) == Set(1...40), "nothing lost")
                // At least once: an event in flight at the kill may come again, never out of order.
                #expect(sequences.reduce(into: [Int64]()) { seen, next in if seen.last.map({ next > $0 }) ?? true { seen.append(next) } } == Array(1...40))
            }
        }
    }
}

/// The commands on a PostgreSQL database, as an operator runs them beside the servers.
@Suite(.watchdog, .postgresPass)
struct PostgresCommandTests {
    @Test func migrateKeysImportAndExportTakeADatabaseURL() async throws {
        let url = try await TestEngine.postgres.freshPlace()
        let migrated = try await CommandLineTests.meridian(["migrate", "--database", url])
        #expect(migrated.status == 0 && migrated.stdout.contains("v16: a batch's changes read by key, lock keys in one function (16 steps applied)"), "\(migrated.stdout)\(migrated.stderr)")
        let created = try await CommandLineTests.meridian(["keys", "create", "--tenant", "acme", "--role", "admin", "--database", url])
        let id = try #require(created.stdout.split(separator: "\n").first.flatMap { KeySecret.parse($0)?.id })
        #expect(try await CommandLineTests.meridian(["keys", "list", "--database", url]).stdout.contains("\(id)\tacme\tadmin"))
        #expect(try await CommandLineTests.meridian(["keys", "revoke", id, "--database", url]).stdout.contains("revoked"))
        let imported = try await CommandLineTests.meridian(["import", try CommandLineTests.file(ImportCommandTests.valid), "--tenant", "acme", "--database", url])
        #expect(imported.status == 0 && imported.stdout.contains("2 created"), "\(imported.stdout)\(imported.stderr)")
        let export = try await CommandLineTests.meridian(["export", "--tenant", "acme", "--database", url]).stdout
        #expect(export.hasPrefix(#"{"features":["#) && export.contains("London"))
        #expect(try await CommandLineTests.meridian(["backup", "/tmp/never.sqlite", "--database", url]).status != 0)  // pg_dump's job
        #expect(try await CommandLineTests.meridian(["migrate", "--database", "postgres://nobody@127.0.0.1/"]).status != 0)
    }
}
