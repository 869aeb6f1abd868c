import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// Corridor regions through the HTTP contract: a route with a tolerance, "left the route" is its
/// exit; bad lines and widths are refused at their place.
@Suite(.watchdog) struct CorridorContractTests {
    /// A 10 km route east from the trace's origin, in five legs.
    static let route = (0...5).map { Trace.at(Double($0) * 2_000) }

    static func corridor(width: Double = 200, line: [Coordinate] = route, extra: String = "") -> String {
        let coordinates = line.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
        return #"{"type":"region","maxLocationAge":null,"initialTrigger":false,"region":{"corridor":{"line":{"type":"LineString","coordinates":[\#(coordinates)]},"width":\#(width)}}\#(extra)}"#
    }

    @Test func aDetourOfTwoKilometresIsOneExitAndOneEnter() async throws {
        try await TestApp.withClient { client in
            let subscription = try await client.subscribe(Self.corridor())
            // Along the route to 3 km, 1 km north, 1 km east, 1 km back south, on to 8 km: a fix every 100 m, 10 s apart.
            var points: [Coordinate] = stride(from: 0.0, through: 3_000, by: 100).map { Trace.at($0) }
            let corner = Trace.at(3_000)
            points += stride(from: 100.0, through: 1_000, by: 100).map { Geodesic.wgs84.direct(from: corner, azimuth: 0, distance: $0).coordinate }
            let north = Geodesic.wgs84.direct(from: corner, azimuth: 0, distance: 1_000).coordinate
            points += stride(from: 100.0, through: 1_000, by: 100).map { Geodesic.wgs84.direct(from: north, azimuth: 90, distance: $0).coordinate }
            let back = Geodesic.wgs84.direct(from: north, azimuth: 90, distance: 1_000).coordinate
            points += stride(from: 100.0, through: 1_000, by: 100).map { Geodesic.wgs84.direct(from: back, azimuth: 180, distance: $0).coordinate }
            points += stride(from: 4_100.0, through: 8_000, by: 100).map { Trace.at($0) }
            let fixes = points.enumerated().map { Trace.fix($1, Double($0) * 10) }
            for chunk in stride(from: 0, to: fixes.count, by: 25) { _ = try await client.postFixes("bus-1", Array(fixes[chunk..<min(chunk + 25, fixes.count)])) }
            let events = try await client.events(of: subscription.id).events
            #expect(events.map(\.type) == ["exit", "enter"], "\(events.map(\.type))")
            let read = try await client.send(.get, "/v1/subscriptions/\(subscription.id)")
            #expect(String(buffer: read.body).contains(#""corridor":{"line":{"coordinates":"#) && String(buffer: read.body).contains(#""width":200"#))
        }
    }

    @Test(arguments: [
        (Self.corridor(line: [Trace.at(0)]), "/region/corridor/line/coordinates"),
        (Self.corridor(width: 0.5), "/region/corridor/width"),
        (Self.corridor(width: 60_000), "/region/corridor/width"),
        (Self.corridor(line: [Trace.at(0), Trace.at(0)]), "/region/corridor/line"),
        (Self.corridor().replacingOccurrences(of: "[\(Trace.at(0).longitude),\(Trace.at(0).latitude)]", with: "[10,95]"), "/region/corridor/line/coordinates/0"),
    ])
    func aBadCorridorIs422AtItsPlace(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.send(.post, "/v1/subscriptions", json: body)
            #expect(response.status == .unprocessableContent, "\(String(buffer: response.body))")
            #expect(String(buffer: response.body).contains(#""pointer":"\#(pointer)"#), "\(String(buffer: response.body))")
        }
    }
}
