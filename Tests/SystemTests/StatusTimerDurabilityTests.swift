import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Status deadlines with the real `meridian` binary: one due while the server is down (`kill -9`)
/// fires once after the restart with its original `occurredAt`; with two instances on one
/// PostgreSQL, 1 000 devices going offline at the same instant give 1 000 `offline` events, none
/// twice, none lost, the log gap-free, even when one instance is killed while they fall due.
@Suite(.watchdog, .serialized)
struct StatusTimerDurabilityTests {
    /// Seconds since ``Trace/start`` of the real clock now.
    static var now: Double { Date().timeIntervalSince(Trace.start) }

    static let status = #"{"type":"status","offlineAfter":%OFFLINE%,"maxLocationAge":null}"#

    /// Every event of the log, read page by page.
    static func log(_ client: TestClient) async throws -> [WireEvent] {
        var events: [WireEvent] = [], after: Int64 = 0
        while true {
            let page = try await client.execute(.request(.get, "/v1/events?after=\(after)&limit=1000")).decode(WireEventPage.self)
            events += page.events
            guard !page.events.isEmpty else { return events }
            after = page.nextAfter
        }
    }

    @Test func aDeadlineDueWhileTheServerIsDownFiresOnceAfterTheRestartWithItsOwnTime() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        // Long enough for the kill to come first even when other suites load the machine.
        let offlineAfter = 45.0
        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }
        let sent = (Self.now - 0.2).rounded(.down)  // whole seconds: the answers write milliseconds
        try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            let created = try await client.execute(.request(.post, "/v1/subscriptions", json: Self.status.replacingOccurrences(of: "%OFFLINE%", with: "\(Int(offlineAfter))")))
            #expect(created.status == .created)
            let ingest = try await client.execute(.request(.post, "/v1/devices/van-1/locations", json: Trace.batch([Trace.fix(Trace.at(0), sent)])))
            #expect(ingest.status == .ok)
        }
        await first.stop()  // SIGKILL with the deadline pending
        try #require(Self.now < sent + offlineAfter, "killed before the deadline (\(Self.now - sent) s after the fix)")
        try await Task.sleep(for: .seconds(max(0, sent + offlineAfter + 1 - Self.now)))  // due while down

        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            let page = try await client.execute(.request(.get, "/v1/events?after=0&wait=20")).decode(WireEventPage.self)
            #expect(page.events.map(\.type) == ["offline"])
            #expect(page.events.first?.occurredAt == Trace.time(sent + offlineAfter), "the original deadline")
            #expect(page.events.first?.location.timestamp == Trace.time(sent))
            try await Task.sleep(for: .seconds(2))
            #expect(try await Self.log(client).count == 1, "once")
        }
    }

    @Test(.postgresPass) func aThousandDevicesGoingOfflineAtOnceOnTwoInstancesGiveAThousandEventsOnceEach() async throws {
        let devices = (0..<1000).map { String(format: "truck-%04d", $0) }
        let offlineAfter = 30.0
        try await TwoInstanceTests.withTwoInstances { a, b, processA, _ in
            let created = try await a.execute(.request(.post, "/v1/subscriptions", json: Self.status.replacingOccurrences(of: "%OFFLINE%", with: "\(Int(offlineAfter))")))
            #expect(created.status == .created)
            // One fix each at the same instant, the first half through A, the second through B,
            // eight at a time (in halves: each switch of instance reloads the other's state).
            let sent = (Self.now - 0.5).rounded(.down)
            let fix = Trace.batch([Trace.fix(Trace.at(0), sent)])
            for (half, client) in [(0..<500, a), (500..<1000, b)] {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<8 {
                        group.addTask {
                            for index in stride(from: half.lowerBound + lane, to: half.upperBound, by: 8) {
                                let response = try await client.execute(.request(.post, "/v1/devices/\(devices[index])/locations", json: fix))
                                #expect(response.status == .ok)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Posted in well under a second alone; in CI's PostgreSQL pass (16 tests at once on 2
            // cores) it once took over 30 s. Then the deadlines fall due while fixes still arrive: a
            // fix past its deadline still sets it, the clock fires it at once, with the same time
            // (StatusEvaluation), so every check below holds for that case too.
            // A is killed just after the deadline: it may have fired some, none or all; B fires the rest.
            try await Task.sleep(for: .seconds(max(0, sent + offlineAfter + 0.05 - Self.now)))
            await processA.stop()
            let deadline = ContinuousClock.now + .seconds(60)
            var events = try await Self.log(b)
            while events.count < devices.count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                events = try await Self.log(b)
            }
            try await Task.sleep(for: .seconds(3))  // anything fired twice would be there by now
            events = try await Self.log(b)
            #expect(events.count == devices.count)
            #expect(Set(events.map(\.deviceId)) == Set(devices), "none lost")
            #expect(Set(events.map(\.deviceId)).count == events.count, "none twice")
            #expect(events.allSatisfy { $0.type == "offline" && $0.occurredAt == Trace.time(sent + offlineAfter) })
            #expect(events.map(\.sequence) == Array(1...Int64(events.count)), "gap-free")
        }
    }
}
