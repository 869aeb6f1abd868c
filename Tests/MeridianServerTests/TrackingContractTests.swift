import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import Testing
import TestSupport

/// The tracking endpoints through Hummingbird's router test client, on an in-memory database.
@Suite(.watchdog) struct TrackingContractTests {
    static let everyFix = Trace.everyFix

    @Test func ingestClassifiesEachFixInArrayOrder() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(Self.everyFix)
            let now = Date().timeIntervalSince(Trace.start)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 100),
                Trace.fix(Trace.at(10), 50),     // older than the accepted one: late
                Trace.fix(Trace.at(20), 200),
                Trace.fix(Trace.at(0), 100),     // same instant as fix 0: duplicate
                #"{"coordinate":{"latitude":91,"longitude":0},"timestamp":"\#(Trace.time(300))","horizontalAccuracy":5}"#,
                Trace.fix(Trace.at(30), 300, accuracy: -1),
                Trace.fix(Trace.at(40), now + 60),  // a minute ahead of the server clock
                Trace.fix(Trace.at(10), 50),     // the late one again: duplicate
            ])
            #expect(answer.statuses == ["accepted", "late:outOfOrder", "accepted", "duplicate", "rejected:invalidCoordinate",
                                        "rejected:invalidAccuracy", "rejected:future", "duplicate"])
            #expect(answer.events.map(\.type) == ["initial", "significantChange"])
            #expect(answer.events.map(\.sequence) == [1, 2])
            #expect(answer.events.allSatisfy { $0.subscriptionId == sub.id && $0.deviceId == "car-1" })
            #expect(answer.events[1].previousLocation?.timestamp == Trace.time(100))

            // History holds accepted and late fixes, oldest first; the device its newest accepted one.
            let history = try await client.get("/v1/devices/car-1/locations", as: HistoryPage.self)
            #expect(history.locations.map(\.timestamp) == [Trace.time(50), Trace.time(100), Trace.time(200)])
            let device = try await client.get("/v1/devices/car-1", as: DeviceAnswer.self)
            #expect(device.lastFix?.timestamp == Trace.time(200))
            #expect(device.subscriptions.map(\.subscriptionId) == [sub.id])
        }
    }

    @Test func rePostingABatchIsIdempotent() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(Self.everyFix)
            let batch = (0..<5).map { Trace.fix(Trace.at(Double($0) * 100), Double($0) * 10) }
            let first = try await client.postFixes("car-1", batch)
            let again = try await client.postFixes("car-1", batch)
            #expect(first.events.count == 5)
            #expect(again.statuses == Array(repeating: "duplicate", count: 4) + ["duplicate"] || again.statuses.allSatisfy { $0 == "duplicate" })
            #expect(again.events.isEmpty)
            #expect(try await client.events(of: sub.id).events.map(\.sequence) == [1, 2, 3, 4, 5])
        }
    }

    @Test func timesKeepMicroseconds() async throws {
        try await TestApp.withClient { client in
            let fix = { (time: String) in #"{"coordinate":{"latitude":1,"longitude":2},"timestamp":"\#(time)","horizontalAccuracy":5}"# }
            let answer = try await client.postFixes("car-1", [fix("2026-01-01T00:00:00.000001Z"), fix("2026-01-01T00:00:00.000002Z"), fix("2026-01-01T01:00:00.000002+01:00")])
            #expect(answer.statuses == ["accepted", "accepted", "duplicate"])
            let history = try await client.get("/v1/devices/car-1/locations", as: HistoryPage.self)
            #expect(history.locations.map(\.timestamp) == ["2026-01-01T00:00:00.000001Z", "2026-01-01T00:00:00.000002Z"])
        }
    }

    @Test func staleFixesAreSkippedPerSubscription() async throws {
        try await TestApp.withClient { client in
            let strict = try await client.subscribe(#"{"type":"significantChange"}"#)
            let buffered = try await client.subscribe(#"{"type":"significantChange","maxLocationAge":null}"#)
            let precise = try await client.subscribe(#"{"type":"significantChange","maxLocationAge":null,"maxHorizontalAccuracy":20}"#)
            #expect(strict.maxLocationAge == 15 && buffered.maxLocationAge == nil)
            let answer = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0, accuracy: 50)])  // a year old
            #expect(answer.statuses == ["accepted"])
            #expect(answer.skipped.map(\.subscriptionId) == [strict.id, precise.id])
            #expect(answer.skipped.map(\.reason) == ["stale", "accuracy"])
            #expect(answer.events.map(\.subscriptionId) == [buffered.id])
        }
    }

    @Test func badBatchesAreRefusedWithThePointer() async throws {
        try await TestApp.withClient { client in
            var fixes = (0..<4).map { Trace.fix(Trace.at(0), Double($0)) }
            fixes[3] = fixes[3].replacingOccurrences(of: Trace.time(3), with: "yesterday")
            let unreadable = try await client.send(.post, "/v1/devices/car-1/locations", json: Trace.batch(fixes)).problem(.badRequest)
            #expect(unreadable.pointers == ["/locations/3/timestamp"])
            let missing = try await client.send(.post, "/v1/devices/car-1/locations", json: #"{"locations":[{"coordinate":{"latitude":1,"longitude":2},"horizontalAccuracy":5}]}"#).problem(.badRequest)
            #expect(missing.pointers == ["/locations/0/timestamp"])
            let tooMany = (0..<1_001).map { Trace.fix(Trace.at(0), Double($0)) }
            #expect(try await client.send(.post, "/v1/devices/car-1/locations", json: Trace.batch(tooMany)).problem(.unprocessableContent).pointers == ["/locations"])
            let badDevice = try await client.send(.post, "/v1/devices/no%20spaces/locations", json: Trace.batch([Trace.fix(Trace.at(0), 0)])).problem(.badRequest)
            #expect(badDevice.errors?.first?.parameter == "deviceId")
            // Nothing of the refused batches was stored.
            _ = try await client.send(.get, "/v1/devices/car-1").problem(.notFound)
        }
    }

    @Test func historyPagesByTime() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car-1", (0..<10).map { Trace.fix(Trace.at(Double($0)), Double($0)) })
            let first = try await client.get("/v1/devices/car-1/locations?limit=4&from=\(Trace.time(2))", as: HistoryPage.self)
            #expect(first.locations.map(\.timestamp) == (2..<6).map { Trace.time(Double($0)) })
            let next = try #require(first.nextFrom)
            let second = try await client.get("/v1/devices/car-1/locations?limit=4&from=\(next)&to=\(Trace.time(7))", as: HistoryPage.self)
            #expect(second.locations.map(\.timestamp) == (6...7).map { Trace.time(Double($0)) })
            #expect(second.nextFrom == nil)
            #expect(try await client.send(.get, "/v1/devices/car-1/locations?from=soon").problem(.badRequest).errors?.first?.parameter == "from")
        }
    }

    /// Rings that cross or stay open are regions too (the even-odd rule says where inside is), so
    /// every polygon the contract's schema allows is one the server takes.
    @Test func aBowTieAndAnOpenRingAreRegions() async throws {
        try await TestApp.withClient { client in
            for polygon in [#"[[[0,0],[1,1],[1,0],[0,1],[0,0]]]"#, #"[[[0,0],[1,0],[1,1],[0,1]]]"#] {
                let created = try await client.subscribe(#"{"type":"region","region":{"type":"Polygon","coordinates":\#(polygon)}}"#)
                #expect(created.type == "region")
            }
        }
    }

    @Test func subscriptionsAreCheckedAndListed() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","deviceIds":["car-1"],"region":{"circle":{"center":{"latitude":45.52,"longitude":-122.68},"radius":1000}}}"#)
            #expect(region.hysteresis == 50 && region.notifyOnEntry == true && region.notifyOnExit == true && region.initialTrigger == true)
            let polygon = try await client.subscribe(#"{"type":"region","region":{"type":"Polygon","coordinates":[[[-122.7,45.5],[-122.6,45.5],[-122.6,45.6],[-122.7,45.6],[-122.7,45.5]]]}}"#)
            let change = try await client.subscribe(#"{"type":"significantChange","deviceIds":["car-2"]}"#)
            #expect(change.distanceFilter == 500 && change.minimumInterval == 300)

            // What the contract's schema refuses is 400 at the first field; what it allows but a rule refuses is 422 listing every field.
            let malformed: [(String, String)] = [
                (#"{"type":"region"}"#, "/region"),
                (#"{"type":"region","distanceFilter":10,"region":{"circle":{"center":{"latitude":0,"longitude":0},"radius":50}}}"#, "/distanceFilter"),
                (#"{"type":"significantChange","dwell":60}"#, "/dwell"),
            ]
            for (body, pointer) in malformed {
                let problem = try await client.send(.post, "/v1/subscriptions", json: body).problem(.badRequest)
                #expect(problem.pointers == [pointer], "\(body)")
            }
            let invalid: [(String, [String])] = [
                (#"{"type":"region","region":{"circle":{"center":{"latitude":95,"longitude":0},"radius":5}}}"#, ["/region/circle/center/latitude", "/region/circle/radius"]),
                (#"{"type":"region","region":{"circle":{"center":{"latitude":0,"longitude":0},"radius":1.797e308}}}"#, ["/region/circle/radius"]),
                (#"{"type":"region","region":{"circle":{"center":{"latitude":0,"longitude":0},"radius":50}},"hysteresis":-1,"deviceIds":[]}"#, ["/hysteresis", "/deviceIds"]),
                (#"{"type":"significantChange","distanceFilter":-5,"maxLocationAge":-1}"#, ["/maxLocationAge", "/distanceFilter"]),
                (#"{"type":"region","region":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,91],[0,1]]]}}"#, ["/region/coordinates/0/2"]),
                (#"{"type":"region","region":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]]]}}"#, ["/region/coordinates/0"]),
            ]
            for (body, pointers) in invalid {
                let problem = try await client.send(.post, "/v1/subscriptions", json: body).problem(.unprocessableContent)
                #expect(Set(problem.pointers) == Set(pointers), "\(body)")
            }
            _ = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"teleport"}"#).problem(.badRequest)

            let all = try await client.get("/v1/subscriptions", as: SubscriptionPage.self)
            #expect(all.subscriptions.map(\.id) == [region.id, polygon.id, change.id])
            let forCar1 = try await client.get("/v1/subscriptions?deviceId=car-1", as: SubscriptionPage.self)
            #expect(forCar1.subscriptions.map(\.id) == [region.id, polygon.id])
            let page = try await client.get("/v1/subscriptions?limit=2", as: SubscriptionPage.self)
            #expect(page.subscriptions.count == 2)
            let rest = try await client.get("/v1/subscriptions?limit=2&cursor=\(try #require(page.nextCursor))", as: SubscriptionPage.self)
            #expect(rest.subscriptions.map(\.id) == [change.id] && rest.nextCursor == nil)
            #expect(try await client.get("/v1/subscriptions/\(polygon.id)", as: WireSubscription.self).type == "region")
            _ = try await client.send(.get, "/v1/subscriptions/nope").problem(.notFound)
        }
    }

    @Test func deletingARegionWhileInsideEmitsAnExitAndKeepsItsEvents() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"region":{"circle":{"center":{"latitude":45.52,"longitude":-122.681944},"radius":500}}}"#)
            let inside = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(100), 10)])
            #expect(inside.events.map(\.type) == ["enter"])
            let before = Date()
            let response = try await client.send(.delete, "/v1/subscriptions/\(region.id)")
            #expect(response.status == .ok)
            let deletion = try response.decode(DeletionAnswer.self)
            #expect(deletion.events.map(\.type) == ["exit"])
            let exit = deletion.events[0]
            #expect(exit.reason == "regionDeleted" && exit.sequence == 2)
            #expect(exit.location.timestamp == Trace.time(10))  // the last evaluated location
            #expect(exit.occurredAt == deletion.subscription.deletedAt)
            let occurredAt = try #require(ISO8601DateFormatter.fractional.date(from: exit.occurredAt))
            #expect(abs(occurredAt.timeIntervalSince(before)) < 5)
            _ = try await client.send(.get, "/v1/subscriptions/\(region.id)").problem(.gone)
            _ = try await client.send(.delete, "/v1/subscriptions/\(region.id)").problem(.gone)
            // Gone as a resource, its events stay in the log.
            _ = try await client.send(.get, "/v1/subscriptions/\(region.id)/events").problem(.gone)
            let log = try await client.send(.get, "/v1/events?subscriptionId=\(region.id)").decode(WireEventPage.self)
            #expect(log.events.map(\.type) == ["enter", "exit"])
            #expect(try await client.send(.get, "/v1/events?after=1").decode(WireEventPage.self).events.map(\.sequence) == [2])
            _ = try await client.send(.get, "/v1/events?subscriptionId=nope").problem(.notFound)
            // The deleted region no longer evaluates fixes.
            #expect(try await client.postFixes("car-1", [Trace.fix(Trace.at(5_000), 20), Trace.fix(Trace.at(0), 30)]).events.isEmpty)
        }
    }

    @Test func eventsPageByAfterAndLimit() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(Self.everyFix)
            _ = try await client.postFixes("car-1", (0..<7).map { Trace.fix(Trace.at(Double($0)), Double($0)) })
            let first = try await client.events(of: sub.id, query: "&limit=3")
            #expect(first.events.map(\.sequence) == [1, 2, 3] && first.nextAfter == 3)
            let second = try await client.events(of: sub.id, after: first.nextAfter, query: "&limit=10")
            #expect(second.events.map(\.sequence) == [4, 5, 6, 7] && second.nextAfter == 7)
            let empty = try await client.events(of: sub.id, after: 7)
            #expect(empty.events.isEmpty && empty.nextAfter == 7)
            let tooLong = try await client.send(.get, "/v1/subscriptions/\(sub.id)/events?wait=61").problem(.unprocessableContent)
            #expect(tooLong.errors?.first?.parameter == "wait")
            _ = try await client.send(.get, "/v1/subscriptions/\(sub.id)/events?limit=1001").problem(.unprocessableContent)
            _ = try await client.send(.get, "/v1/subscriptions/nope/events").problem(.notFound)
        }
    }

    @Test func longPollAnswersAsSoonAsAnEventIsCommitted() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(#"{"type":"significantChange","deviceIds":["car-1"],"maxLocationAge":null}"#)
            let other = try await client.subscribe(#"{"type":"significantChange","deviceIds":["car-2"],"maxLocationAge":null}"#)
            let started = ContinuousClock.now
            async let poll = client.events(of: sub.id, query: "&wait=20")
            try await Task.sleep(for: .milliseconds(300))
            _ = try await client.postFixes("car-2", [Trace.fix(Trace.at(0), 0)])  // another subscription's event: keep waiting
            try await Task.sleep(for: .milliseconds(300))
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0)])
            let page = try await poll
            #expect(page.events.map(\.type) == ["initial"] && page.events[0].sequence == 2)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await client.events(of: other.id).events.map(\.sequence) == [1])
            // With nothing new, a short wait answers an empty page once it has passed.
            let waited = ContinuousClock.now
            #expect(try await client.events(of: sub.id, after: 2, query: "&wait=0.3").events.isEmpty)
            #expect(ContinuousClock.now - waited >= .milliseconds(300))
        }
    }

    @Test func significantChangeTraceOverHTTP() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(#"{"type":"significantChange","maxLocationAge":null}"#)
            var types: [String] = []
            for (metres, seconds) in [(0.0, 0.0), (400, 60), (600, 120), (600, 360)] {
                types += try await client.postFixes("car-1", [Trace.fix(Trace.at(metres), seconds)]).events.map(\.type)
            }
            #expect(types == ["initial", "significantChange"])
            let events = try await client.events(of: sub.id).events
            #expect(events[1].location.timestamp == Trace.time(360) && events[1].previousLocation?.timestamp == Trace.time(0))
        }
    }

    @Test func regionCommuteAndDwellOverHTTP() async throws {
        try await TestApp.withClient { client in
            let office = Trace.at(5_000)
            let sub = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"dwell":60,"region":{"circle":{"center":{"latitude":\#(office.latitude),"longitude":\#(office.longitude)},"radius":1000}}}"#)
            var metres: [Double] = Array(stride(from: 0.0, to: 4_000, by: 200))
            metres += (0..<10).map { 4_000 + ($0.isMultiple(of: 2) ? 30 : -30) }
            metres += Array(stride(from: 4_200.0, through: 7_000, by: 200))
            // One batch: fixes 10 s apart, evaluated in order.
            let answer = try await client.postFixes("car-1", metres.enumerated().map { Trace.fix(Trace.at($0.element), Double($0.offset) * 10) })
            #expect(answer.events.map(\.type) == ["enter", "dwell", "exit"])
            #expect(try await client.events(of: sub.id).events.map(\.sequence) == [1, 2, 3])
        }
    }
}

struct SubscriptionPage: Decodable { var subscriptions: [WireSubscription]; var nextCursor: String? }
struct DeletionAnswer: Decodable { var subscription: WireSubscription; var events: [WireEvent] }
struct DeviceAnswer: Decodable {
    struct State: Decodable { var subscriptionId: String; var inside: Bool? }
    var id: String
    var lastFix: WireFix?
    var subscriptions: [State]
}

extension ISO8601DateFormatter {
    static var fractional: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
