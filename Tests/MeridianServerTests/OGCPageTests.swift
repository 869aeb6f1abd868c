import Foundation
import Testing
import TestSupport
import WireJSON

@testable import MeridianServer

/// The `f=html` pages as built from their JSON: text escaped, features handed to the map as
/// JSON that cannot end its script element, links between the levels.
@Suite(.watchdog) struct OGCPageTests {
    static let hostile = "</script><img src=x onerror=alert(1)>&\"'"

    @Test func anItemsPageHasTheMapAndEscapesEveryText() {
        let feature: JSONValue = .object([
            "type": .string("Feature"), "id": .string(Self.hostile),
            "geometry": .object(["type": .string("Point"), "coordinates": .array([.number(1), .number(2)])]),
            "properties": .object([Self.hostile: .string(Self.hostile), "speed": .number(3)]),
        ])
        let json: JSONValue = .object([
            "type": .string("FeatureCollection"), "features": .array([feature]), "numberReturned": .number(1),
            "links": .array([.object(["href": .string("http://h/ogc/collections/devices/items?cursor=a&f=json"), "rel": .string("next")])]),
        ])
        let html = OGCPage(resource: .items, json: json, path: "/ogc/collections/devices/items").render()
        #expect(html.contains("<div id=\"map\"></div>"))
        #expect(html.contains("<script src=\"/web/vendor/leaflet/leaflet.js\"></script>"))
        #expect(!html.contains("<img"), "no markup from the data")
        #expect(!html.contains(Self.hostile))
        #expect(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;"))
        // The script's JSON has no `<`, yet reads back as the features.
        let start = html.range(of: "id=\"ogc-features\">")!.upperBound, end = html.range(of: "</script>", range: start..<html.endIndex)!.lowerBound
        let data = String(html[start..<end])
        #expect(!data.contains("<") && !data.contains(">"))
        let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(data.utf8))
        #expect(decoded == json)
        #expect(html.contains("href=\"/ogc/collections/devices?f=html\""), "breadcrumb to the collection")
        #expect(html.contains("/ogc/collections/devices/items/%3C"), "the item's link, its id percent-encoded")
    }

    @Test func theCollectionsPageLinksEachCollectionsPage() {
        let json: JSONValue = .object(["collections": .array([.object(["id": .string("regions"), "title": .string("Regions")])])])
        let html = OGCPage(resource: .collections, json: json, path: "/ogc/collections").render()
        #expect(html.contains("<a href=\"/ogc/collections/regions?f=html\">regions</a>"))
        #expect(html.contains("<a href=\"/ogc?f=html\">OGC API</a>"))
        #expect(!html.contains("id=\"map\""), "no map without features")
    }
}
