import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// The `devices` and `regions` collections under `/ogc`: a device's last fix as a point, a region
/// subscription as its polygon (a circle's vertices checked with the geodesic inverse).
@Suite(.watchdog) struct OGCTrackingContractTests {
    /// A region feature: its geometry's rings as read.
    struct RegionFeature: Decodable {
        struct Geometry: Decodable { var type: String; var coordinates: [[[Double]]] }
        var id: String
        var geometry: Geometry
        var properties: [String: JSONAny]
    }
    struct RegionPage: Decodable { var features: [RegionFeature]; var numberMatched: Int? }

    static func fix(_ coordinate: Coordinate, _ seconds: Double, speed: Double) -> String {
        #"{"coordinate":{"latitude":\#(coordinate.latitude),"longitude":\#(coordinate.longitude)},"timestamp":"\#(Trace.time(seconds))","horizontalAccuracy":7,"speed":\#(speed),"course":90}"#
    }

    @Test func eachDeviceIsAPointAtItsLastFix() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car-1", [Self.fix(Trace.at(0), 0, speed: 3), Self.fix(Trace.at(500), 60, speed: 8)])
            _ = try await client.postFixes("bike", [Trace.fix(Trace.at(2_000), 30)])
            let pages = try await client.ogcPages("/ogc/collections/devices/items?limit=1")
            #expect(pages.count == 2 && pages[0].numberMatched == 2)
            let features = pages.flatMap(\.features)
            #expect(features.map(\.id) == ["bike", "car-1"])
            let car = features[1], last = Trace.at(500)
            #expect(car.geometry.type == "Point" && car.geometry.coordinates == [last.longitude, last.latitude])
            #expect(car.properties["timestamp"] == .string(Trace.time(60)))
            #expect(car.properties["speed"] == .number(8) && car.properties["horizontalAccuracy"] == .number(7) && car.properties["course"] == .number(90))
            #expect(features[0].properties["speed"] == nil, "a field the fix lacks is left out")
            // The fix time is the temporal property.
            let later = try await client.ogcFeatures("/ogc/collections/devices/items?datetime=\(Trace.time(45))/..")
            #expect(later.map(\.id) == ["car-1"])
            let one = try await client.send(.get, "/ogc/collections/devices/items/car-1")
            #expect(one.status == .ok && one.headers[.contentType] == "application/geo+json; charset=utf-8")
            #expect(try one.decode(OGCWireFeature.self).geometry.coordinates == [last.longitude, last.latitude])
            _ = try await client.send(.get, "/ogc/collections/devices/items/nobody").problem(.notFound)
            let boxed = try await client.ogcFeatures("/ogc/collections/devices/items?bbox=\(last.longitude - 0.001),\(last.latitude - 0.001),\(last.longitude + 0.001),\(last.latitude + 0.001)")
            #expect(boxed.map(\.id) == ["car-1"])
            // The same CQL2 engine on the served properties: a number, the fix time as a timestamp, the point.
            let fast = try await client.ogcFeatures("/ogc/collections/devices/items?filter=speed%20%3E%205")
            #expect(fast.map(\.id) == ["car-1"])
            let early = try await client.ogcFeatures("/ogc/collections/devices/items?filter=" + "T_BEFORE(timestamp, TIMESTAMP('\(Trace.time(45))'))".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(early.map(\.id) == ["bike"])
            let near = try await client.ogcFeatures("/ogc/collections/devices/items?filter=" + "S_INTERSECTS(geometry, BBOX(\(last.longitude - 0.001), \(last.latitude - 0.001), \(last.longitude + 0.001), \(last.latitude + 0.001)))".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(near.map(\.id) == ["car-1"])
        }
    }

    @Test func eachRegionIsItsPolygonWithFlatProperties() async throws {
        try await TestApp.withClient { client in
            let centre = Trace.at(1_000)
            let circle = try await client.subscribe(#"{"type":"region","name":"depot","properties":{"zone":"a","name":"free"},"region":\#(Trace.circle(at: 1_000, radius: 300))}"#)
            let line = [Trace.at(0), Trace.at(3_000)].map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
            let corridor = try await client.subscribe(#"{"type":"region","region":{"corridor":{"line":{"type":"LineString","coordinates":[\#(line)]},"width":100}}}"#)
            _ = try await client.subscribe(Trace.everyFix)
            let response = try await client.send(.get, "/ogc/collections/regions/items")
            #expect(response.status == .ok && response.headers[.contentType] == "application/geo+json; charset=utf-8")
            let page = try response.decode(RegionPage.self)
            #expect(page.features.map(\.id) == [circle.id, corridor.id].sorted(), "a significant-change subscription is no region")
            let drawn = try #require(page.features.first { $0.id == circle.id })
            #expect(drawn.geometry.type == "Polygon")
            let ring = drawn.geometry.coordinates[0]
            #expect(ring.count > 64 && ring.first == ring.last)
            for position in ring {
                let distance = Geodesic.wgs84.inverse(from: centre, to: Coordinate(latitude: position[1], longitude: position[0])).distance
                #expect(abs(distance - 300) < 1e-6)
            }
            #expect(drawn.properties["type"] == .string("circle") && drawn.properties["radius"] == .number(300))
            #expect(drawn.properties["name"] == .string("depot") && drawn.properties["zone"] == .string("a"))
            #expect(drawn.properties["properties.name"] == .string("free"), "a free property named like a field is properties.<name>")
            let band = try #require(page.features.first { $0.id == corridor.id })
            #expect(band.properties["type"] == .string("corridor") && band.properties["width"] == .number(100))
            // Filters read the flat properties (a dotted name is first a key of its own) and the polygon.
            let zoned = try await client.get("/ogc/collections/regions/items?filter=zone%20%3D%20%27a%27%20AND%20%22properties.name%22%20%3D%20%27free%27", as: RegionPage.self)
            #expect(zoned.features.map(\.id) == [circle.id])
            let contains = "S_CONTAINS(geometry, POINT(\(centre.longitude) \(centre.latitude)))".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let around = try await client.get("/ogc/collections/regions/items?filter=" + contains, as: RegionPage.self)
            #expect(around.features.map(\.id) == [circle.id, corridor.id].sorted(), "the corridor's line runs through the circle's centre")
            let beyond = Trace.at(3_500), outside = "S_INTERSECTS(geometry, POINT(\(beyond.longitude) \(beyond.latitude)))".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await client.get("/ogc/collections/regions/items?filter=" + outside, as: RegionPage.self).features.isEmpty)
            let item = try await client.send(.get, "/ogc/collections/regions/items/\(circle.id)")
            #expect(item.status == .ok)
            _ = try await client.send(.delete, "/v1/subscriptions/\(circle.id)")
            _ = try await client.send(.get, "/ogc/collections/regions/items/\(circle.id)").problem(.notFound)
        }
    }

    @Test func theCollectionsListTheTrackingCollectionsWithTheirCRSs() async throws {
        try await TestApp.withClient { client in
            struct Collections: Decodable { struct Collection: Decodable { var id: String; var crs: [String]; var storageCrs: String? }; var collections: [Collection] }
            let collections = try await client.get("/ogc/collections", as: Collections.self).collections
            #expect(Set(collections.map(\.id)).isSuperset(of: ["annotations", "devices", "regions"]))
            for collection in collections {
                #expect(collection.crs == ["http://www.opengis.net/def/crs/OGC/1.3/CRS84", "http://www.opengis.net/def/crs/EPSG/0/4326", "http://www.opengis.net/def/crs/EPSG/0/3857"])
                #expect(collection.storageCrs == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
            }
        }
    }
}
