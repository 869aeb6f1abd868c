import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Every kind of bad input answers problem+json naming the field; never a 500.
@Suite(.watchdog) struct BadInputContractTests {
    @Test func aBodyThatIsNotJSONIsSaidOnce() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.post("/v1/viewport", json: "nope").problem(.badRequest)
            #expect(problem.detail == "the body is not valid JSON")
        }
    }

    @Test func aMalformedQueryParameterIsNamedNotBlamedOnTheBody() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.get, "/v1/subscriptions?limit=null").problem(.badRequest)
            #expect(problem.errors?.first?.parameter == "limit" && problem.detail == #"limit must be an integer, got "null""#)
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let path: String
        let json: String
        let status: HTTPResponse.Status
        let pointer: String?
        var testDescription: String { name }
    }

    static let view = #""size":{"width":256,"height":256}"#
    static let origin = #"{"latitude":0,"longitude":0}"#

    static let cases: [Case] = [
        Case(name: "a key repeated in one object, on the conversion path", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[{"latitude":1,"latitude":2,"longitude":3}]}"#, status: .badRequest, pointer: "/coordinates/0/latitude"),
        Case(name: "a key repeated in one object, on the thin fast path", path: "/v1/annotations/thin",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":3,"zoomLevel":4}}"#, status: .badRequest, pointer: "/viewport/zoomLevel"),
        Case(name: "an explicit null for a string member (the schema says string)", path: "/v1/annotations",
             json: #"{"coordinate":\#(origin),"externalId":null}"#, status: .badRequest, pointer: "/externalId"),
        Case(name: "an explicit null for the viewport's area", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":1,"visibleMapRect":null}}"#, status: .badRequest, pointer: "/viewport/visibleMapRect"),
        Case(name: "an explicit null on the thin fast path", path: "/v1/annotations/thin",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":1},"kinds":null}"#, status: .badRequest, pointer: "/kinds"),
        Case(name: "an empty CRS name", path: "/v1/crs/transform",
             json: #"{"source":"","target":"EPSG:3857","positions":[]}"#, status: .unprocessableContent, pointer: "/source"),
        Case(name: "map rect sizes whose region would not be finite", path: "/v1/convert/map-rects-to-regions",
             json: #"{"mapRects":[{"origin":{"x":-1.6e15,"y":0},"size":{"width":1,"height":1e278}}]}"#, status: .unprocessableContent, pointer: "/mapRects/0/origin/x"),
        Case(name: "latitude out of range at index 3", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[\#(origin),\#(origin),\#(origin),{"latitude":91,"longitude":0}]}"#,
             status: .unprocessableContent, pointer: "/coordinates/3/latitude"),
        Case(name: "longitude past -180", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[{"latitude":0,"longitude":-180.0001}]}"#, status: .unprocessableContent, pointer: "/coordinates/0/longitude"),
        Case(name: "malformed JSON", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":["#, status: .badRequest, pointer: nil),
        Case(name: "missing field", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[{"latitude":0}]}"#, status: .badRequest, pointer: "/coordinates/0/longitude"),
        Case(name: "string for a number", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[{"latitude":"north","longitude":0}]}"#, status: .badRequest, pointer: "/coordinates/0/latitude"),
        Case(name: "missing batch", path: "/v1/convert/coordinates-to-map-points", json: "{}", status: .badRequest, pointer: "/coordinates"),
        Case(name: "number too large to be finite", path: "/v1/convert/map-points-to-coordinates",
             json: #"{"mapPoints":[{"x":1e999,"y":0}]}"#, status: .badRequest, pointer: nil),
        Case(name: "batch over 10 000", path: "/v1/convert/coordinates-to-map-points",
             json: #"{"coordinates":[\#(Array(repeating: origin, count: 10_001).joined(separator: ","))]}"#,
             status: .unprocessableContent, pointer: "/coordinates"),
        Case(name: "negative span", path: "/v1/convert/regions-to-map-rects",
             json: #"{"regions":[{"center":\#(origin),"span":{"latitudeDelta":-1,"longitudeDelta":1}}]}"#,
             status: .unprocessableContent, pointer: "/regions/0/span/latitudeDelta"),
        Case(name: "negative map size", path: "/v1/convert/map-rects-to-regions",
             json: #"{"mapRects":[{"origin":{"x":0,"y":0},"size":{"width":-5,"height":1}}]}"#,
             status: .unprocessableContent, pointer: "/mapRects/0/size/width"),
        Case(name: "zero-size view", path: "/v1/convert/coordinates-to-screen-points",
             json: #"{"viewport":{"size":{"width":0,"height":256},"center":\#(origin),"zoomLevel":3},"coordinates":[]}"#,
             status: .unprocessableContent, pointer: "/viewport/size/width"),
        Case(name: "viewport with two areas", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":3,"region":{"center":\#(origin),"span":{"latitudeDelta":1,"longitudeDelta":1}}}}"#,
             status: .unprocessableContent, pointer: "/viewport"),
        Case(name: "a viewport member of none of its forms", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":3,"zoom":3}}"#, status: .badRequest, pointer: "/viewport/zoom"),
        Case(name: "a viewport member of none of its forms, on the thin fast path", path: "/v1/annotations/thin",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":3,"zoom":3}}"#, status: .badRequest, pointer: "/viewport/zoom"),
        Case(name: "viewport with no area", path: "/v1/viewport", json: #"{"viewport":{\#(view)}}"#,
             status: .unprocessableContent, pointer: "/viewport"),
        Case(name: "zoom level out of range", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":40}}"#, status: .unprocessableContent, pointer: "/viewport/zoomLevel"),
        Case(name: "center without zoom level", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"center":\#(origin)}}"#, status: .unprocessableContent, pointer: "/viewport/zoomLevel"),
        Case(name: "non-finite heading from a huge number", path: "/v1/viewport",
             json: #"{"viewport":{\#(view),"heading":1e400,"center":\#(origin),"zoomLevel":1}}"#, status: .badRequest, pointer: nil),
        Case(name: "bad screen point in a batch", path: "/v1/convert/screen-points-to-map-points",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":1},"points":[{"x":1}]}"#, status: .badRequest, pointer: "/points/0/y"),
        Case(name: "negative screen rect", path: "/v1/convert/screen-rects-to-regions",
             json: #"{"viewport":{\#(view),"center":\#(origin),"zoomLevel":1},"rects":[{"origin":{"x":0,"y":0},"size":{"width":1,"height":-1}}]}"#,
             status: .unprocessableContent, pointer: "/rects/0/size/height"),
        Case(name: "fit into a zero view", path: "/v1/regions/fit",
             json: #"{"region":{"center":\#(origin),"span":{"latitudeDelta":1,"longitudeDelta":1}},"size":{"width":0,"height":10}}"#,
             status: .unprocessableContent, pointer: "/size/width"),
        Case(name: "negative distance for a region", path: "/v1/regions/with-distance",
             json: #"{"center":\#(origin),"latitudinalMeters":-1,"longitudinalMeters":10}"#, status: .unprocessableContent, pointer: "/latitudinalMeters"),
        Case(name: "geodesic pair with a bad end", path: "/v1/geodesic/inverse",
             json: #"{"pairs":[{"from":\#(origin),"to":{"latitude":100,"longitude":0}}]}"#, status: .unprocessableContent, pointer: "/pairs/0/to/latitude"),
        Case(name: "absurd geodesic distance", path: "/v1/geodesic/direct",
             json: #"{"items":[{"from":\#(origin),"azimuth":0,"distance":1e12}]}"#, status: .unprocessableContent, pointer: "/items/0/distance"),
        Case(name: "unknown EPSG code", path: "/v1/crs/transform",
             json: #"{"source":"EPSG:999999","target":"EPSG:3857","positions":[[0,0]]}"#, status: .unprocessableContent, pointer: "/source"),
        Case(name: "a CRS name with a NUL character (PROJ would stop reading there)", path: "/v1/crs/transform",
             json: #"{"source":"EPSG:4326\u0000garbage","target":"EPSG:3857","positions":[[0,0]]}"#, status: .unprocessableContent, pointer: "/source"),
        Case(name: "position with one number", path: "/v1/crs/transform",
             json: #"{"source":"EPSG:4326","target":"EPSG:3857","positions":[[0,0],[1]]}"#, status: .unprocessableContent, pointer: "/positions/1"),
    ]

    @Test(arguments: cases)
    func answersProblemJSONNamingTheField(_ c: Case) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.post(c.path, json: c.json).problem(c.status)
            if let pointer = c.pointer {
                #expect(problem.pointers.contains(pointer), "\(problem)")
            }
            #expect(problem.detail?.isEmpty == false)
        }
    }

    @Test func everyInvalidItemIsListed() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.post(
                "/v1/convert/coordinates-to-map-points",
                json: #"{"coordinates":[{"latitude":91,"longitude":0},{"latitude":0,"longitude":0},{"latitude":0,"longitude":181}]}"#
            ).problem(.unprocessableContent)
            #expect(problem.pointers == ["/coordinates/0/latitude", "/coordinates/2/longitude"])
        }
    }

    @Test func exactlyPlusMinus180IsAccepted() async throws {
        try await TestApp.withClient { client in
            let response = try await client.post(
                "/v1/convert/coordinates-to-map-points",
                json: #"{"coordinates":[{"latitude":-90,"longitude":-180},{"latitude":90,"longitude":180}]}"#
            )
            #expect(response.status == .ok)
        }
    }

    @Test func aWrongContentTypeIs415() async throws {
        try await TestApp.withClient { client in
            _ = try await client.post("/v1/convert/coordinates-to-map-points", json: "{}", contentType: "text/plain").problem(.unsupportedMediaType)
        }
    }
}
