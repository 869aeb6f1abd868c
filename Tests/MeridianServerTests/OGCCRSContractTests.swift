import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// Part 2 under `/ogc`: `crs` (with `Content-Crs`), `bbox-crs` and `filter-crs`, checked against
/// Web Mercator worked by hand (x = R·λ, y = R·ln tan(π/4 + φ/2), R = 6 378 137 m) and EPSG:4326's
/// latitude-first order.
@Suite(.watchdog) struct OGCCRSContractTests {
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let epsg4326 = "http://www.opengis.net/def/crs/EPSG/0/4326"
    static let epsg3857 = "http://www.opengis.net/def/crs/EPSG/0/3857"
    // Portland, as DESIGN.md's check point.
    static let (latitude, longitude) = (45.52, -122.681944)
    static let x = 6_378_137 * longitude * .pi / 180
    static let y = 6_378_137 * log(tan(.pi / 4 + latitude * .pi / 360))

    static func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }

    @Test func anItemIsAnsweredInTheCRSAskedForAndSaysWhich() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car", [#"{"coordinate":{"latitude":\#(Self.latitude),"longitude":\#(Self.longitude)},"timestamp":"\#(Trace.time(0))","horizontalAccuracy":5}"#])
            let plain = try await client.send(.get, "/ogc/collections/devices/items/car")
            #expect(plain.headers[HTTPField.Name("Content-Crs")!] == "<\(Self.crs84)>")
            let mercator = try await client.send(.get, "/ogc/collections/devices/items/car?crs=\(Self.encoded(Self.epsg3857))")
            #expect(mercator.status == .ok && mercator.headers[HTTPField.Name("Content-Crs")!] == "<\(Self.epsg3857)>")
            let point = try mercator.decode(OGCWireFeature.self).geometry.coordinates
            #expect(abs(point[0] - Self.x) < 1e-6 && abs(point[1] - Self.y) < 1e-6, "\(point) vs \(Self.x), \(Self.y)")
            let page = try await client.send(.get, "/ogc/collections/devices/items?crs=\(Self.encoded(Self.epsg4326))")
            #expect(page.headers[HTTPField.Name("Content-Crs")!] == "<\(Self.epsg4326)>")
            #expect(try page.decode(OGCWirePage.self).features[0].geometry.coordinates == [Self.latitude, Self.longitude])
            let refused = try await client.send(.get, "/ogc/collections/devices/items?crs=\(Self.encoded("http://www.opengis.net/def/crs/EPSG/0/2154"))")
            #expect(try refused.problem(.badRequest).errors?.first?.parameter == "crs")
        }
    }

    @Test func aBoxAndAFilterMayBeGivenInAnotherCRS() async throws {
        try await TestApp.withClient { client in
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":\#(Self.latitude),"longitude":\#(Self.longitude)},"title":"Portland"}"#)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":10,"longitude":10},"title":"elsewhere"}"#)
            let box = [Self.x - 100, Self.y - 100, Self.x + 100, Self.y + 100].map { String($0) }.joined(separator: ",")
            let boxed = try await client.ogcFeatures("/ogc/collections/annotations/items?bbox=\(box)&bbox-crs=\(Self.encoded(Self.epsg3857))")
            #expect(boxed.map { $0.properties["title"] } == [.string("Portland")])
            let latitudeFirst = "\(Self.latitude - 0.01),\(Self.longitude - 0.01),\(Self.latitude + 0.01),\(Self.longitude + 0.01)"
            let swapped = try await client.ogcFeatures("/ogc/collections/annotations/items?bbox=\(latitudeFirst)&bbox-crs=\(Self.encoded(Self.epsg4326))")
            #expect(swapped.map { $0.properties["title"] } == [.string("Portland")])
            let filter = "S_INTERSECTS(geometry,POLYGON((\(Self.x - 100) \(Self.y - 100),\(Self.x + 100) \(Self.y - 100),\(Self.x + 100) \(Self.y + 100),\(Self.x - 100) \(Self.y + 100),\(Self.x - 100) \(Self.y - 100))))"
            let filtered = try await client.ogcFeatures("/ogc/collections/annotations/items?filter=\(Self.encoded(filter))&filter-crs=\(Self.encoded(Self.epsg3857))")
            #expect(filtered.map { $0.properties["title"] } == [.string("Portland")])
            let json = #"{"op":"s_intersects","args":[{"property":"geometry"},{"bbox":[\#(Self.latitude - 0.01),\#(Self.longitude - 0.01),\#(Self.latitude + 0.01),\#(Self.longitude + 0.01)]}]}"#
            let filteredJSON = try await client.ogcFeatures("/ogc/collections/annotations/items?filter-lang=cql2-json&filter=\(Self.encoded(json))&filter-crs=\(Self.encoded(Self.epsg4326))")
            #expect(filteredJSON.map { $0.properties["title"] } == [.string("Portland")])
            let refused = try await client.send(.get, "/ogc/collections/annotations/items?bbox=0,0,1,1&bbox-crs=EPSG:4326")
            #expect(try refused.problem(.badRequest).errors?.first?.parameter == "bbox-crs")
        }
    }

    @Test func everyResourceHasAnHTMLPage() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("car", [Trace.fix(Trace.at(0), 0)])
            for path in ["/ogc", "/ogc/conformance", "/ogc/collections", "/ogc/collections/devices", "/ogc/collections/devices/queryables", "/ogc/collections/devices/items", "/ogc/collections/devices/items/car"] {
                let response = try await client.send(.get, path + "?f=html")
                let body = String(buffer: response.body)
                #expect(response.status == .ok && response.headers[.contentType] == "text/html", "\(path)")
                #expect(body.hasPrefix("<!doctype html>") && body.contains("<a href=\"/ogc?f=html\">") == (path != "/ogc"), "\(path)")
                #expect(body.contains("<div id=\"map\"></div>") == path.contains("/items"), "\(path)")
                if path.contains("/items") { #expect(body.contains("<script src=\"/web/vendor/leaflet/leaflet.js\"></script>")) }
            }
            // A browser's Accept gets the page; no Accept, JSON.
            let browser = try await client.execute(
                uri: "/ogc/collections/devices/items", method: .get,
                headers: [.accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"], body: nil)
            #expect(browser.headers[.contentType] == "text/html")
            #expect(try await client.send(.get, "/ogc/collections/devices/items").headers[.contentType] == "application/geo+json; charset=utf-8")
            // The vendored script the pages load is served.
            #expect(try await client.send(.get, "/web/vendor/leaflet/leaflet.js").status == .ok)
        }
    }
}

