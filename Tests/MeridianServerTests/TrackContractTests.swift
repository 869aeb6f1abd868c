import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// `GET /v1/devices/{deviceId}/track`: the device's fixes as a simplified GeoJSON line.
@Suite(.watchdog) struct TrackContractTests {
    /// The answer as a map client reads it.
    struct Feature: Decodable {
        struct Geometry: Decodable {
            var type: String
            var line: [[Double]]?
            var lines: [[[Double]]]?

            enum CodingKeys: String, CodingKey { case type, coordinates }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                type = try container.decode(String.self, forKey: .type)
                if type == "LineString" { line = try container.decode([[Double]].self, forKey: .coordinates) } else {
                    lines = try container.decode([[[Double]]].self, forKey: .coordinates)
                }
            }
        }
        struct Properties: Decodable {
            var deviceId: String
            var times: [String]?
            var partTimes: [[String]]?
            var fixCount: Int
            var keptCount: Int
            var tolerance: Double
            var gap: Double
            var nextFrom: String?

            enum CodingKeys: String, CodingKey { case deviceId, times, fixCount, keptCount, tolerance, gap, nextFrom }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                deviceId = try container.decode(String.self, forKey: .deviceId)
                times = try? container.decode([String].self, forKey: .times)
                if times == nil { partTimes = try container.decode([[String]].self, forKey: .times) }
                fixCount = try container.decode(Int.self, forKey: .fixCount)
                keptCount = try container.decode(Int.self, forKey: .keptCount)
                tolerance = try container.decode(Double.self, forKey: .tolerance)
                gap = try container.decode(Double.self, forKey: .gap)
                nextFrom = try container.decodeIfPresent(String.self, forKey: .nextFrom)
            }
        }
        var type: String
        var geometry: Geometry?
        var properties: Properties
    }

    private func track(_ client: some TestClientProtocol, _ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Feature {
        let response = try await client.send(.get, "/v1/devices/car-1/track\(query)")
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        #expect(response.headers[.contentType]?.hasPrefix("application/geo+json") == true, sourceLocation: sourceLocation)
        return try response.decode(Feature.self)
    }

    private func lonLat(_ c: Coordinate) -> [Double] { [c.longitude, c.latitude] }

    @Test func aWalkWithATurnIsItsCornersWithTheirTimes() async throws {
        try await TestApp.withClient { client in
            // 200 m east in 10 m steps, then 200 m north: the corner and the ends are kept at 5 m.
            let east = (0...20).map { Trace.at(Double($0) * 10) }
            let corner = east[20]
            let north = (1...20).map { Geodesic.wgs84.direct(from: corner, azimuth: 0, distance: Double($0) * 10).coordinate }
            let path = east + north
            var fixes = path.enumerated().map { Trace.fix($0.element, Double($0.offset) * 10) }
            let late = fixes.remove(at: 7)  // posted after the rest: late, still history, still on the track
            _ = try await client.postFixes("car-1", fixes)
            #expect(try await client.postFixes("car-1", [late]).statuses == ["late:outOfOrder"])
            let feature = try await track(client, "")
            #expect(feature.type == "Feature" && feature.geometry?.type == "LineString")
            let line = try #require(feature.geometry?.line)
            #expect(line == [lonLat(path[0]), lonLat(corner), lonLat(path[40])])
            #expect(feature.properties.times == [Trace.time(0), Trace.time(200), Trace.time(400)])
            #expect((feature.properties.fixCount, feature.properties.keptCount) == (41, 3))
            #expect((feature.properties.tolerance, feature.properties.gap, feature.properties.deviceId) == (5, 3600, "car-1"))
            #expect(feature.properties.nextFrom == nil)
            // At tolerance 0 every fix is off the segments spanning it by rounding at most, or on
            // them: the corner's neighbours are what a 0 m line needs.
            let exact = try await track(client, "?tolerance=0")
            #expect(exact.properties.fixCount == 41 && exact.properties.keptCount >= 3)
            let range = try await track(client, "?from=\(Trace.time(100))&to=\(Trace.time(300))")
            #expect(range.geometry?.line == [lonLat(path[10]), lonLat(corner), lonLat(path[30])])
        }
    }

    @Test func aGapCutsTheLineAndTimesComePerPart() async throws {
        try await TestApp.withClient { client in
            let seconds: [Double] = [0, 10, 20, 20 + 3601, 20 + 3611]
            let path = seconds.indices.map { Trace.at(Double($0) * 100) }
            _ = try await client.postFixes("car-1", zip(path, seconds).map { Trace.fix($0, $1) })
            let feature = try await track(client, "")
            #expect(feature.geometry?.type == "MultiLineString")
            #expect(feature.geometry?.lines == [[lonLat(path[0]), lonLat(path[2])], [lonLat(path[3]), lonLat(path[4])]])
            #expect(feature.properties.partTimes == [[Trace.time(0), Trace.time(20)], [Trace.time(3621), Trace.time(3631)]])
            // A gap of an hour and more: one line.
            let joined = try await track(client, "?gap=3601")
            #expect(joined.geometry?.type == "LineString" && joined.geometry?.line?.count == 2)
            // A gap of 5 s leaves each fix alone: a part of its position twice.
            let alone = try await track(client, "?gap=5")
            #expect(alone.geometry?.lines?.map { $0.count } == [2, 2, 2, 2, 2])
            #expect(alone.geometry?.lines?[0] == [lonLat(path[0]), lonLat(path[0])])
        }
    }

    @Test func crossingTheAntimeridianEndsOnOneSideAndStartsOnTheOther() async throws {
        try await TestApp.withClient { client in
            let fixes = [Coordinate(latitude: 10, longitude: 179.5), Coordinate(latitude: 12, longitude: -179.5), Coordinate(latitude: 12.5, longitude: -179)]
            _ = try await client.postFixes("car-1", fixes.enumerated().map { Trace.fix($0.element, Double($0.offset) * 1000) })
            let feature = try await track(client, "")
            let lines = try #require(feature.geometry?.lines)
            #expect(lines.count == 2)
            // GeographicLib: the geodesic crosses at 11.003 815 631 590°N.
            #expect(lines[0].first == [179.5, 10] && lines[0].last?[0] == 180 && abs(lines[0].last![1] - 11.003_815_631_590) < 1e-9)
            #expect(lines[1].first == [-180, lines[0].last![1]] && lines[1].last == [-179, 12.5])
            let times = try #require(feature.properties.partTimes)
            #expect(times[0].count == lines[0].count && times[1].count == lines[1].count && times[0].last == times[1].first)
            #expect(feature.properties.keptCount == 3)
        }
    }

    @Test func anEmptyRangeIsANullGeometryAndAnUnknownDevice404() async throws {
        try await TestApp.withClient { client in
            _ = try await client.send(.get, "/v1/devices/car-1/track").problem(.notFound)
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0)])
            let response = try await client.send(.get, "/v1/devices/car-1/track?from=\(Trace.time(10))")
            #expect(response.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect(json["geometry"] is NSNull)
            #expect((json["properties"] as? [String: Any])?["times"] as? [Any] == nil || ((json["properties"] as? [String: Any])?["times"] as? [Any])?.isEmpty == true)
            let feature = try response.decode(Feature.self)
            #expect(feature.properties.fixCount == 0 && feature.properties.keptCount == 0)
            // One fix: a line of its position twice.
            let one = try await track(client, "")
            #expect(one.geometry?.line == [lonLat(Trace.at(0)), lonLat(Trace.at(0))])
            #expect(one.properties.times == [Trace.time(0), Trace.time(0)])
        }
    }

    @Test func aRangeBeyondTheLimitSaysWhereTheRestBegins() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car-1", (0..<10).map { Trace.fix(Trace.at(Double($0) * 100, azimuth: Double($0 % 2) * 90), Double($0)) })
            let first = try await track(client, "?limit=4")
            #expect(first.properties.fixCount == 4 && first.properties.times?.first == Trace.time(0))
            let next = try #require(first.properties.nextFrom)
            let rest = try await track(client, "?limit=6&from=\(next)")
            #expect(rest.properties.fixCount == 6 && rest.properties.times?.first == Trace.time(4) && rest.properties.nextFrom == nil)
        }
    }

    @Test func badParametersAreNamed() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0)])
            for (query, parameter) in [("tolerance=-1", "tolerance"), ("tolerance=1000001", "tolerance"), ("gap=-5", "gap"),
                                       ("limit=0", "limit"), ("limit=10001", "limit"), ("tolerance=nan", "tolerance")] {
                let problem = try await client.send(.get, "/v1/devices/car-1/track?\(query)").problem(.unprocessableContent)
                #expect(problem.errors?.map(\.parameter) == [parameter], "\(query)")
            }
            for (query, parameter) in [("from=yesterday", "from"), ("to=2026-13-01T00:00:00Z", "to"), ("tolerance=five", "tolerance")] {
                let problem = try await client.send(.get, "/v1/devices/car-1/track?\(query)").problem(.badRequest)
                #expect(problem.errors?.first?.parameter == parameter, "\(query)")
            }
            let badDevice = try await client.send(.get, "/v1/devices/no%20spaces/track").problem(.badRequest)
            #expect(badDevice.errors?.first?.parameter == "deviceId")
        }
    }

    @Test func headAnswersTheHeadersOfGet() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(50), 10)])
            let get = try await client.send(.get, "/v1/devices/car-1/track")
            let head = try await client.send(.head, "/v1/devices/car-1/track")
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(head.headers[.contentLength] == get.headers[.contentLength])
        }
    }
}
