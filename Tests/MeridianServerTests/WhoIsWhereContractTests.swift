import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// Device and region queries: devices by box, age and distance; the regions holding a point; who
/// is inside a region now.
@Suite(.watchdog) struct WhoIsWhereContractTests {
    struct DevicePage: Decodable {
        struct Device: Decodable { var id: String; var lastFix: WireFix }
        var devices: [Device]
        var nextCursor: String?
    }
    struct Nearest: Decodable {
        struct Result: Decodable { var device: DevicePage.Device; var distance: Double }
        var results: [Result]
    }
    struct Containing: Decodable {
        struct Entry: Decodable { var subscription: WireSubscription; var distanceToBoundary: Double }
        var subscriptions: [Entry]
    }
    struct Occupants: Decodable {
        struct Occupant: Decodable { var deviceId: String; var enteredAt: String?; var dwelling: Bool; var location: WireFix }
        var occupants: [Occupant]
        var nextCursor: String?
    }

    static let everyFix = TrackingContractTests.everyFix
    /// Seconds from `Trace.start` to now, so a fix can be fresh.
    static var now: Double { Date().timeIntervalSince(Trace.start) }

    @Test func devicesListByBoxAndAgeAndPageInIdOrder() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("van-1", [Trace.fix(Trace.at(0), 0)])
            _ = try await client.postFixes("van-2", [Trace.fix(Trace.at(5_000), Self.now - 5)])
            _ = try await client.postFixes("ship-9", [Trace.fix(Coordinate(latitude: -17, longitude: 179.5), 10)])
            let all = try await client.send(.get, "/v1/devices").decode(DevicePage.self)
            #expect(all.devices.map(\.id) == ["ship-9", "van-1", "van-2"] && all.nextCursor == nil)
            let first = try await client.send(.get, "/v1/devices?limit=2").decode(DevicePage.self)
            #expect(first.devices.map(\.id) == ["ship-9", "van-1"] && first.nextCursor == "van-1")
            let rest = try await client.send(.get, "/v1/devices?limit=2&cursor=van-1").decode(DevicePage.self)
            #expect(rest.devices.map(\.id) == ["van-2"] && rest.nextCursor == nil)
            let pacific = try await client.send(.get, "/v1/devices?bbox=170,-20,-170,-10").decode(DevicePage.self)
            #expect(pacific.devices.map(\.id) == ["ship-9"])
            let recent = try await client.send(.get, "/v1/devices?seenSince=\(Trace.time(Self.now - 60))").decode(DevicePage.self)
            #expect(recent.devices.map(\.id) == ["van-2"])
            _ = try await client.send(.get, "/v1/devices?seenSince=yesterday").problem(.unprocessableContent)
        }
    }

    @Test func nearestDevicesAreInGeodesicOrderAndMaxAgeDropsStaleOnes() async throws {
        try await TestApp.withClient { client in
            let places = [("a", Trace.at(300)), ("b", Trace.at(1_000, azimuth: 0)), ("c", Trace.at(50, azimuth: 200)), ("d", Coordinate(latitude: 10, longitude: 10))]
            for (index, (id, place)) in places.enumerated() {
                _ = try await client.postFixes(id, [Trace.fix(place, id == "b" ? Self.now - 1 : Double(index))])
            }
            let answer = try await client.send(.post, "/v1/devices/nearest", json: #"{"point":{"latitude":\#(Trace.origin.latitude),"longitude":\#(Trace.origin.longitude)},"limit":3}"#).decode(Nearest.self)
            #expect(answer.results.map(\.device.id) == ["c", "a", "b"])
            for result in answer.results {
                let expected = Geodesic.wgs84.inverse(from: Trace.origin, to: Coordinate(latitude: result.device.lastFix.coordinate.latitude, longitude: result.device.lastFix.coordinate.longitude)).distance
                #expect(abs(result.distance - expected) < 1e-6)
            }
            let fresh = try await client.send(.post, "/v1/devices/nearest", json: #"{"point":{"latitude":0,"longitude":0},"maxAge":600}"#).decode(Nearest.self)
            #expect(fresh.results.map(\.device.id) == ["b"])
            // An age larger than any instant's range limits nothing (it once overflowed and trapped).
            let ancient = try await client.send(.post, "/v1/devices/nearest", json: #"{"point":{"latitude":0,"longitude":0},"maxAge":1e300}"#).decode(Nearest.self)
            #expect(ancient.results.count == 4)
            let bad = try await client.send(.post, "/v1/devices/nearest", json: #"{"point":{"latitude":0,"longitude":200}}"#).problem(.unprocessableContent)
            #expect(bad.pointers == ["/point/longitude"])
        }
    }

    @Test func theRegionsHoldingAPointComeWithTheirDistanceToTheBoundary() async throws {
        try await TestApp.withClient { client in
            let circle = { (radius: Int) in #"{"type":"region","maxLocationAge":null,"region":{"circle":{"center":{"latitude":\#(Trace.origin.latitude),"longitude":\#(Trace.origin.longitude)},"radius":\#(radius)}}}"# }
            let big = try await client.subscribe(circle(1_000))
            let small = try await client.subscribe(circle(200))
            let square = try await client.subscribe(#"{"type":"region","region":{"type":"Polygon","coordinates":[[[-122.69,45.51],[-122.67,45.51],[-122.67,45.53],[-122.69,45.53],[-122.69,45.51]]]}}"#)
            let gone = try await client.subscribe(circle(5_000))
            _ = try await client.send(.delete, "/v1/subscriptions/\(gone.id)")
            _ = try await client.subscribe(Self.everyFix)
            let point = Trace.at(500)
            let answer = try await client.send(.post, "/v1/subscriptions/containing", json: #"{"point":{"latitude":\#(point.latitude),"longitude":\#(point.longitude)}}"#).decode(Containing.self)
            #expect(answer.subscriptions.map(\.subscription.id) == [big.id, square.id].sorted())
            let toBig = try #require(answer.subscriptions.first { $0.subscription.id == big.id })
            #expect(abs(toBig.distanceToBoundary - 500) < 0.01)
            #expect(!answer.subscriptions.contains { $0.subscription.id == small.id })
            let nowhere = try await client.send(.post, "/v1/subscriptions/containing", json: #"{"point":{"latitude":0,"longitude":0}}"#).decode(Containing.self)
            #expect(nowhere.subscriptions.isEmpty)
        }
    }

    @Test func occupantsAreTheDevicesInsideNow() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"dwell":60,"region":{"circle":{"center":{"latitude":\#(Trace.origin.latitude),"longitude":\#(Trace.origin.longitude)},"radius":1000}}}"#)
            _ = try await client.postFixes("in-1", [Trace.fix(Trace.at(100), 0), Trace.fix(Trace.at(120), 100)])
            _ = try await client.postFixes("in-2", [Trace.fix(Trace.at(300), 0)])
            _ = try await client.postFixes("out-1", [Trace.fix(Trace.at(5_000), 0)])
            _ = try await client.postFixes("left-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(3_000), 60)])
            let page = try await client.send(.get, "/v1/subscriptions/\(region.id)/occupants").decode(Occupants.self)
            #expect(page.occupants.map(\.deviceId) == ["in-1", "in-2"])
            #expect(page.occupants.first?.dwelling == true && page.occupants.last?.dwelling == false)
            let first = try await client.send(.get, "/v1/subscriptions/\(region.id)/occupants?limit=1").decode(Occupants.self)
            #expect(first.occupants.map(\.deviceId) == ["in-1"] && first.nextCursor == "in-1")
            let significant = try await client.subscribe(Self.everyFix)
            _ = try await client.send(.get, "/v1/subscriptions/\(significant.id)/occupants").problem(.notFound)
            _ = try await client.send(.get, "/v1/subscriptions/nope/occupants").problem(.notFound)
            _ = try await client.send(.delete, "/v1/subscriptions/\(region.id)")
            _ = try await client.send(.get, "/v1/subscriptions/\(region.id)/occupants").problem(.gone)
        }
    }
}
