import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// Status subscriptions through the HTTP contract, on the engine this run tests: created, read,
/// validated field by field, edited; their deadlines fired by the server's own timer into the log,
/// reaching a long poll that waits for them, with `occurredAt` the deadline.
@Suite(.watchdog) struct StatusContractTests {
    struct Status: Decodable { var id: String; var type: String; var offlineAfter: Double?; var stoppedAfter: Double?; var stoppedSpeed: Double? }

    /// Seconds since ``Trace/start`` of the real clock now (fixes must not be in the future).
    static var now: Double { Date().timeIntervalSince(Trace.start) }

    @Test func aStatusSubscriptionIsCreatedReadAndEditedWithItsFields() async throws {
        try await TestApp.withClient { client in
            let created = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"status","offlineAfter":600,"stoppedAfter":300}"#)
            #expect(created.status == .created)
            let status = try created.decode(Status.self)
            #expect(status.type == "status" && status.offlineAfter == 600 && status.stoppedAfter == 300 && status.stoppedSpeed == 1)
            let edited = try await client.send(.patch, "/v1/subscriptions/\(status.id)", json: #"{"stoppedAfter":null,"stoppedSpeed":2.5}"#)
            #expect(edited.status == .ok, "\(String(buffer: edited.body))")
            let read = try await client.send(.get, "/v1/subscriptions/\(status.id)").decode(Status.self)
            #expect(read.offlineAfter == 600 && read.stoppedAfter == nil && read.stoppedSpeed == 2.5)
            // Both halves off is a subscription that watches nothing, as a region notifying neither entry nor exit.
            let bare = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"status"}"#)
            #expect(bare.status == .created)
            #expect(try bare.decode(Status.self).offlineAfter == nil)
        }
    }

    @Test(arguments: [
        (#"{"type":"status","offlineAfter":0}"#, "/offlineAfter"),
        (#"{"type":"status","stoppedAfter":31536001}"#, "/stoppedAfter"),
        (#"{"type":"status","offlineAfter":60,"stoppedSpeed":-1}"#, "/stoppedSpeed"),
    ])
    func anInvalidStatusSubscriptionIs422AtTheField(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/subscriptions", json: body).problem(.unprocessableContent)
            #expect(problem.pointers == [pointer], "\(problem)")
        }
    }

    @Test func editsThatDoNotFitAreRefusedAtTheField() async throws {
        try await TestApp.withClient { client in
            let status = try await client.subscribe(#"{"type":"status","offlineAfter":60}"#)
            let short = try await client.send(.patch, "/v1/subscriptions/\(status.id)", json: #"{"offlineAfter":0.5}"#).problem(.unprocessableContent)
            #expect(short.pointers == ["/offlineAfter"])
            let region = try await client.send(.patch, "/v1/subscriptions/\(status.id)", json: #"{"hysteresis":10}"#).problem(.conflict)
            #expect(region.pointers == ["/hysteresis"])
            let other = try await client.subscribe(Trace.everyFix)
            let misfit = try await client.send(.patch, "/v1/subscriptions/\(other.id)", json: #"{"stoppedSpeed":3}"#).problem(.conflict)
            #expect(misfit.pointers == ["/stoppedSpeed"])
        }
    }

    @Test func aDeadlineFiresIntoAWaitingLongPollWithTheDeadlineAsOccurredAt() async throws {
        try await TestApp.withClient { client in
            let status = try await client.subscribe(#"{"type":"status","offlineAfter":2,"maxLocationAge":null}"#)
            let sent = (Self.now - 0.5).rounded(.down)
            _ = try await client.postFixes("van-1", [Trace.fix(Trace.at(0), sent)])
            // Waiting before the deadline (sent + 2 s): the timer's commit wakes the poll.
            let page = try await client.send(.get, "/v1/events?after=0&wait=20").decode(WireEventPage.self)
            let offline = try #require(page.events.first)
            #expect(page.events.map(\.type) == ["offline"])
            #expect(offline.subscriptionId == status.id && offline.deviceId == "van-1" && offline.sequence == 1)
            #expect(offline.occurredAt == Trace.time(sent + 2), "the deadline, not when the timer ran")
            #expect(offline.location.timestamp == Trace.time(sent))
            // The next fix is online; the log stays gap-free, and the timer fired once.
            let back = try await client.postFixes("van-1", [Trace.fix(Trace.at(10), Self.now - 0.1)])
            #expect(back.events.map(\.type) == ["online"] && back.events.map(\.sequence) == [2])
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains(#"meridian_status_deadlines_fired_total{tenant="default"} 1"#), "\(metrics.split(separator: "\n").filter { $0.contains("deadlines") })")
        }
    }

    @Test func aBufferedTraceIsStoppedAndMovingInEventTime() async throws {
        try await TestApp.withClient { client in
            _ = try await client.subscribe(#"{"type":"status","stoppedAfter":60,"stoppedSpeed":1,"maxLocationAge":null}"#)
            // 0–120 s parked (no speed: from positions, 0 m/s), then 1 km in 60 s (16.7 m/s).
            let fixes = [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(0), 30), Trace.fix(Trace.at(0), 120), Trace.fix(Trace.at(1_000), 180)]
            let ingest = try await client.postFixes("van-2", fixes)
            #expect(ingest.events.map(\.type) == ["stopped", "moving"])
            #expect(ingest.events.map(\.occurredAt) == [Trace.time(60), Trace.time(180)])
        }
    }

    @Test func deletingTheSubscriptionDropsItsDeadlines() async throws {
        try await TestApp.withClient { client in
            let status = try await client.subscribe(#"{"type":"status","offlineAfter":8,"maxLocationAge":null}"#)
            let sent = Self.now - 0.2
            _ = try await client.postFixes("van-3", [Trace.fix(Trace.at(0), sent)])
            #expect(try await client.send(.delete, "/v1/subscriptions/\(status.id)").status == .ok)
            try #require(Self.now < sent + 8, "deleted before the deadline (\(Self.now - sent) s after the fix)")
            try await Task.sleep(for: .seconds(sent + 9 - Self.now))
            #expect(try await client.send(.get, "/v1/events?after=0").decode(WireEventPage.self).events.isEmpty)
        }
    }
}
