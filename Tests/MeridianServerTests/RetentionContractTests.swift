import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapGeometry
import MeridianServer
import Storage
import Testing
import TestSupport
import Timeline
import Tracking

/// Retention: the tenant's settings resource, the background deletion of expired fixes and events
/// (a prefix of the log), and the 410 a cursor before what is kept answers.
@Suite(.watchdog) struct RetentionContractTests {
    struct Retention: Decodable, Equatable {
        var keepFixes: Int64?
        var keepEvents: Int64?
        var defaultKeepFixes: Int64?
        var defaultKeepEvents: Int64?
        var firstAvailableSequence: Int64
        var fixesDeletedBefore: String?
    }

    struct ExpiredProblem: Decodable { var status: Int; var firstAvailableSequence: Int64? }

    /// Sweeps every 50 ms in batches of 3 rows and 2 devices, so a sweep takes several transactions.
    static func quick(_ configuration: inout ServerConfiguration) {
        configuration.retentionPace.interval = .milliseconds(50)
        configuration.retentionPace.rowsPerSecond = 3_000  // 1 ms after a batch of 3
        configuration.retentionPace.batchSize = 3
        configuration.retentionPace.devicesPerBatch = 2
    }

    /// A fix `secondsAgo` before now (Trace's fixes are from 2026-01-01, long expired under a 30-day period).
    static func recent(_ secondsAgo: Double, metres: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let c = Trace.at(metres)
        return #"{"coordinate":{"latitude":\#(c.latitude),"longitude":\#(c.longitude)},"timestamp":"\#(formatter.string(from: Date().addingTimeInterval(-secondsAgo)))","horizontalAccuracy":5}"#
    }

    /// Waits (10 s at most) until `check` holds.
    static func eventually(_ what: String, _ check: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !check() {
            guard ContinuousClock.now < deadline else { Issue.record("never: \(what)"); return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func theSettingsAreAResourceOverTheServersDefaults() async throws {
        try await TestApp.withClient(configure: { $0.retention.keepEvents = 7 * 86_400 }) { client in
            // What is not set is absent.
            let initial = try await client.send(.get, "/v1/retention")
            #expect(String(buffer: initial.body) == #"{"defaultKeepEvents":604800,"firstAvailableSequence":1}"#)
            let put = try await client.send(.put, "/v1/retention", json: #"{"keepFixes":2592000,"keepEvents":null}"#)
            #expect(put.status == .ok)
            #expect(String(buffer: put.body) == #"{"defaultKeepEvents":604800,"firstAvailableSequence":1,"keepFixes":2592000}"#)
            #expect(try await client.get("/v1/retention", as: Retention.self).keepFixes == 2_592_000)

            // Out of range: 422 naming each field; a wrong type or an unknown member: 400. Nothing changes.
            let refused = try await client.send(.put, "/v1/retention", json: #"{"keepFixes":0,"keepEvents":3162240001}"#).problem(.unprocessableContent)
            #expect(Set(refused.pointers) == ["/keepFixes", "/keepEvents"])
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepFixes":"30d"}"#).problem(.badRequest)
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepFixez":60}"#).problem(.badRequest)
            #expect(try await client.get("/v1/retention", as: Retention.self).keepFixes == 2_592_000)

            // `{}` follows the server's defaults again. (The sweep at start may have read the 30 days
            // first and moved the fix mark: the mark stays.)
            var reset = try await client.send(.put, "/v1/retention", json: "{}").decode(Retention.self)
            reset.fixesDeletedBefore = nil
            #expect(reset == (try initial.decode(Retention.self)))
        }
    }

    @Test func expiredFixesAreDeletedTheDevicesLastFixStays() async throws {
        try await TestApp.withClient(configure: Self.quick) { client in
            _ = try await client.postFixes("old-1", (0..<10).map { Trace.fix(Trace.at(Double($0) * 100), Double($0) * 60) })
            _ = try await client.postFixes("old-2", (0..<7).map { Trace.fix(Trace.at(Double($0) * 100), Double($0) * 60) })
            _ = try await client.postFixes("new-1", (0..<5).map { Self.recent(Double(300 - $0 * 60), metres: Double($0) * 100) })
            let before = try await client.get("/v1/devices/old-1", as: DeviceAnswer.self)
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepFixes":2592000}"#)

            try await Self.eventually("the old fixes are deleted") {
                let one = try await client.get("/v1/devices/old-1/locations", as: HistoryPage.self).locations
                let two = try await client.get("/v1/devices/old-2/locations", as: HistoryPage.self).locations
                return one.isEmpty && two.isEmpty
            }
            #expect(try await client.get("/v1/devices/new-1/locations", as: HistoryPage.self).locations.count == 5)
            // The device's state keeps its newest fix, however old.
            #expect(try await client.get("/v1/devices/old-1", as: DeviceAnswer.self).lastFix == before.lastFix)
            #expect(before.lastFix?.timestamp == Trace.time(540))
            let retention = try await client.get("/v1/retention", as: Retention.self)
            #expect(retention.fixesDeletedBefore != nil)
            // Hidden first (the reads above), then deleted in batches.
            try await Self.eventually("the 17 old fixes are counted deleted") {
                String(buffer: try await client.send(.get, "/metrics").body).contains(#"meridian_retention_deleted_total{kind="fixes",tenant="default"} 17"#)
            }
        }
    }

    @Test func expiredEventsGoAsAPrefixAndAnOlderCursorIsGone() async throws {
        try await TestApp.withClient(configure: Self.quick) { client in
            _ = try await client.subscribe(Trace.everyFix)
            _ = try await client.postFixes("car-1", (0..<5).map { Self.recent(Double(50 - $0), metres: Double($0) * 100) })
            #expect(try await client.get("/v1/events?after=0", as: WireEventPage.self).events.map(\.sequence) == [1, 2, 3, 4, 5])
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepEvents":1}"#)
            try await Self.eventually("the five events are deleted") {
                try await client.get("/v1/retention", as: Retention.self).firstAvailableSequence == 6
            }
            _ = try await client.send(.put, "/v1/retention", json: "{}")
            // Numbering goes on; `after=0` reads from the first kept, the cursor it left off at too.
            _ = try await client.postFixes("car-1", [Self.recent(0, metres: 600)])
            #expect(try await client.get("/v1/events?after=0", as: WireEventPage.self).events.map(\.sequence) == [6])
            #expect(try await client.get("/v1/events?after=5", as: WireEventPage.self).events.map(\.sequence) == [6])

            for path in ["/v1/events?after=3", "/v1/events?after=1&wait=1"] {
                let gone = try await client.send(.get, path)
                _ = try gone.problem(.gone)
                #expect(try gone.decode(ExpiredProblem.self).firstAvailableSequence == 6)
            }
            let stream = try await client.send(.get, "/v1/events/stream", headers: [HTTPField.Name("Last-Event-ID")!: "4"])
            _ = try stream.problem(.gone)
            #expect(try stream.decode(ExpiredProblem.self).firstAvailableSequence == 6)
            // The gauge follows the tenant's deletes in the sweep. PostgreSQL leaves this month's
            // hidden events to the month's partition (a second ago is this month).
            try await Self.eventually("the first kept event is 6 in the metrics") {
                String(buffer: try await client.send(.get, "/metrics").body).contains(#"meridian_retention_first_event_sequence{tenant="default"} 6"#)
            }
            if TestEngine.contract == .sqlite {
                try await Self.eventually("the 5 events are counted deleted") {
                    String(buffer: try await client.send(.get, "/metrics").body).contains(#"meridian_retention_deleted_total{kind="events",tenant="default"} 5"#)
                }
            }
        }
    }

    /// Another instance (here a second engine on the same database) hides and deletes events 1–3:
    /// this server's readers learn it from the store at their next read, not at its own next sweep.
    @Test func anotherInstancesDeletionIsGoneAtTheNextRead() async throws {
        var configuration = try await TestApp.configuration()
        configuration.databasePath = try await TestEngine.contract.freshPlace(persistent: true)
        configuration.retentionPace.interval = .seconds(3600)
        let place = configuration.databasePath
        try await buildApplication(configuration).test(.router) { client in
            _ = try await client.subscribe(Trace.everyFix)
            _ = try await client.postFixes("car-1", (0..<3).map { Self.recent(Double(50 - $0), metres: Double($0) * 100) })
            let other = try await DatabasePlace.open(place)
            let everything = Instant(microseconds: Int64.max / 2)
            try await other.retention(tenant: .default).markEvents(recordedBefore: everything)
            let deleted = try await other.retention(tenant: .default).deleteEvents(recordedBefore: everything, limit: 3)
            await other.close()
            #expect(deleted == 3)
            _ = try await client.postFixes("car-1", (3..<5).map { Self.recent(Double(50 - $0), metres: Double($0) * 100) })
            for path in ["/v1/events?after=1", "/v1/events?after=2&wait=1"] {
                let gone = try await client.send(.get, path)
                _ = try gone.problem(.gone)
                #expect(try gone.decode(ExpiredProblem.self).firstAvailableSequence == 4, "\(path)")
            }
            let stream = try await client.send(.get, "/v1/events/stream", headers: [HTTPField.Name("Last-Event-ID")!: "2"])
            _ = try stream.problem(.gone)
            #expect(try await client.get("/v1/events?after=3", as: WireEventPage.self).events.map(\.sequence) == [4, 5])
            #expect(try await client.get("/v1/events?after=0", as: WireEventPage.self).events.map(\.sequence) == [4, 5])
        }
    }

    @Test func aRestartAfterTheWholeLogWasDeletedNumbersOn() async throws {
        var configuration = try await TestApp.configuration()
        configuration.databasePath = try await TestEngine.contract.freshPlace(persistent: true)
        Self.quick(&configuration)
        try await buildApplication(configuration).test(.router) { client in
            _ = try await client.subscribe(Trace.everyFix)
            _ = try await client.postFixes("car-1", (0..<3).map { Self.recent(Double(50 - $0), metres: Double($0) * 100) })
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepEvents":1,"keepFixes":1}"#)
            try await Self.eventually("the log is empty") {
                let first = try await client.get("/v1/retention", as: Retention.self).firstAvailableSequence
                let fixes = try await client.get("/v1/devices/car-1/locations", as: HistoryPage.self).locations
                return first == 4 && fixes.isEmpty
            }
            _ = try await client.send(.put, "/v1/retention", json: "{}")
        }
        try await buildApplication(configuration).test(.router) { client in
            #expect(try await client.get("/v1/events?after=0", as: WireEventPage.self).events.isEmpty)
            let answer = try await client.postFixes("car-1", [Self.recent(0, metres: 400)])
            #expect(answer.statuses == ["accepted"])
            #expect(try await client.get("/v1/events?after=0", as: WireEventPage.self).events.map(\.sequence) == [4])
            _ = try await client.send(.get, "/v1/events?after=2").problem(.gone)
        }
    }

    @Test func replayingFromBeforeWhatIsKeptIsGone() async throws {
        try await WebhookApp.withLiveClient(configure: Self.quick) { client in
            _ = try await client.subscribe(Trace.everyFix)
            _ = try await client.postFixes("car-1", (0..<3).map { Self.recent(Double(50 - $0), metres: Double($0) * 100) })
            // Port 9 (discard) refuses: the webhook stays behind, and retention overtakes it.
            let id = try await client.createWebhook(#"{"url":"http://127.0.0.1:9/hook"}"#).id
            _ = try await client.send(.put, "/v1/retention", json: #"{"keepEvents":1}"#)
            try await Self.eventually("the log is empty") { try await client.get("/v1/retention", as: Retention.self).firstAvailableSequence == 4 }
            let gone = try await client.send(.post, "/v1/webhooks/\(id)/replay", json: #"{"fromSequence":2}"#)
            _ = try gone.problem(.gone)
            #expect(try gone.decode(ExpiredProblem.self).firstAvailableSequence == 4)
            #expect(try await client.send(.post, "/v1/webhooks/\(id)/replay", json: #"{"fromSequence":1}"#).status == .accepted)
        }
    }

    struct DeviceAnswer: Decodable { var lastFix: WireFix? }
}
