import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// `detect: ["cross"]` through the HTTP contract: a device driving through a 300 m circle between
/// fixes five minutes apart gets enter and exit, interpolated, in order, stored and listed like any
/// event; the subscription says what it detects; a bad value is refused at its place.
@Suite(.watchdog) struct CrossingContractTests {
    static func circle(_ extra: String) -> String {
        Trace.crossedCircle(extra)
    }

    @Test func aCrossingBetweenFixesIsAnInterpolatedEnterAndExit() async throws {
        try await TestApp.withClient { client in
            let crossing = try await client.subscribe(Self.circle(#","detect":["cross"]"#))
            let plain = try await client.subscribe(Self.circle(""))
            #expect(crossing.detect == ["cross"] && plain.detect == nil)
            let fixes = (0..<5).map { Trace.fix(Trace.at(Double($0) * 4_166), Double($0) * 300) }
            // One batch for the first three, then one request per fix: the segment spans requests.
            _ = try await client.postFixes("van-9", Array(fixes[0..<3]))
            let answer = try await client.postFixes("van-9", [fixes[3]])
            #expect(answer.events.map(\.type) == ["enter", "exit"] && answer.events.allSatisfy { $0.interpolated == true })
            _ = try await client.postFixes("van-9", [fixes[4]])
            let events = try await client.events(of: crossing.id).events
            #expect(events.map(\.type) == ["enter", "exit"])
            #expect(events.map(\.occurredAt) == [Trace.time(300 * 2 + 1_700 / 4_166 * 300), Trace.time(300 * 2 + 2_300 / 4_166 * 300)]
                    || events.allSatisfy { $0.occurredAt > Trace.time(600) && $0.occurredAt < Trace.time(900) }, "\(events.map(\.occurredAt))")
            #expect(events.first?.occurredAt ?? "" < events.last?.occurredAt ?? "")
            #expect(try await client.events(of: plain.id).events.isEmpty)
            // Listed whole: the subscription reads back with what it detects.
            let read = try await client.send(.get, "/v1/subscriptions/\(crossing.id)").decode(WireSubscription.self)
            #expect(read.detect == ["cross"])
        }
    }

    @Test(arguments: [(#","detect":["cross","cross"]"#, 422, "/detect"), (#","detect":["teleport"]"#, 400, "/detect/0")])
    func aBadDetectIsRefusedAtItsPlace(extra: String, status: Int, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.send(.post, "/v1/subscriptions", json: Self.circle(extra))
            #expect(response.status.code == status, "\(String(buffer: response.body))")
            #expect(String(buffer: response.body).contains(#""pointer":"\#(pointer)""#), "\(String(buffer: response.body))")
        }
    }

    /// A closed ring of `count` positions (`count - 1` distinct) on a circle of `radius` degrees about 45° N 122° W.
    static func ring(_ count: Int, radius: Double) -> String {
        let points = (0..<count).map { index -> String in
            let angle = Double(index % (count - 1)) / Double(count - 1) * 2 * .pi
            return "[\(-122 + radius * cos(angle)),\(45 + radius * sin(angle))]"
        }
        return "[\(points.joined(separator: ","))]"
    }

    /// Each distance to a polygon visits every edge, and a crossing takes tens of distances per
    /// fix: 40 000 positions took 50–90 s per 100 fixes. A polygon holds at most 10 000 positions in
    /// all its rings together, on create and on update, counted before any of them is read.
    @Test func aPolygonHoldsAtMostTenThousandPositionsInAllRings() async throws {
        try await TestApp.withClient { client in
            func region(_ exterior: Int, _ hole: Int) -> String {
                #"{"type":"Polygon","coordinates":[\#(Self.ring(exterior, radius: 0.1)),\#(Self.ring(hole, radius: 0.05))]}"#
            }
            let largest = try await client.subscribe(#"{"type":"region","detect":["cross"],"region":\#(region(6_000, 4_000))}"#)
            let tooMany = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"region","detect":["cross"],"region":\#(region(6_000, 4_001))}"#)
            let created = try tooMany.problem(.unprocessableContent)
            #expect(created.pointers == ["/region/coordinates"] && created.detail?.contains("10000") == true, "\(created)")
            let updated = try await client.send(.patch, "/v1/subscriptions/\(largest.id)", json: #"{"region":\#(region(10_001, 4))}"#)
            #expect(try updated.problem(.unprocessableContent).pointers == ["/region/coordinates"])
        }
    }
}
