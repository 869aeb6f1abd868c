import Foundation
import Geodesy
import HTTPTypes
import MeridianHTTP
import Testing
import TestSupport
import WireJSON

@testable import MeridianServer

/// Part 2's CRSs through PROJ against numbers worked by hand: Web Mercator is x = R·λ,
/// y = R·ln tan(π/4 + φ/2) with R = 6 378 137 m; EPSG:4326 is CRS84 with its axes swapped.
@Suite(.watchdog) struct OGCCRSTests {
    let pool = CRSTransformerPool()
    static let radius = 6_378_137.0

    static func mercator(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        (radius * longitude * .pi / 180, radius * log(tan(.pi / 4 + latitude * .pi / 360)))
    }

    @Test(arguments: [(45.52, -122.681944), (-33.8688, 151.2093), (0, 0), (60.1699, 24.9384)])
    func webMercatorMatchesTheFormula(latitude: Double, longitude: Double) throws {
        let expected = Self.mercator(latitude: latitude, longitude: longitude)
        let out = try OGCCRS.epsg3857.fromCRS84([[longitude, latitude]], with: pool)[0]
        #expect(abs(out[0] - expected.x) < 1e-6 && abs(out[1] - expected.y) < 1e-6, "\(out) vs \(expected)")
        let back = try #require(try OGCCRS.epsg3857.toCRS84([out], with: pool)[0])
        #expect(abs(back[0] - longitude) < 1e-9 && abs(back[1] - latitude) < 1e-9)
    }

    @Test func epsg4326PutsLatitudeFirst() throws {
        #expect(try OGCCRS.epsg4326.fromCRS84([[-122.5, 45.5]], with: pool) == [[45.5, -122.5]])
        #expect(try OGCCRS.epsg4326.toCRS84([[45.5, -122.5]], with: pool) == [[-122.5, 45.5]])
    }

    @Test func aGeometryIsTransformedPositionByPosition() throws {
        let polygon: JSONValue = .object([
            "type": .string("Polygon"),
            "coordinates": .array([.array([[0, 0], [10, 0], [10, 10], [0, 0]].map { .array($0.map { .number(Double($0)) }) })]),
        ])
        let out = try OGCCRS.epsg3857.geometry(polygon, with: pool)
        guard case .array(let rings)? = out.objectValue?["coordinates"], case .array(let ring) = rings[0], case .array(let third) = ring[2],
              case .number(let x) = third[0], case .number(let y) = third[1] else { Issue.record("no coordinates in \(out)"); return }
        let expected = Self.mercator(latitude: 10, longitude: 10)
        #expect(abs(x.double - expected.x) < 1e-6 && abs(y.double - expected.y) < 1e-6)
        #expect(out.objectValue?["type"] == .string("Polygon"))
    }

    @Test func aBoxInMercatorBecomesDegrees() throws {
        let (lower, upper) = (Self.mercator(latitude: 40, longitude: -10), Self.mercator(latitude: 50, longitude: 20))
        let box = try OGCCRS.epsg3857.boxInCRS84([lower.x, lower.y, upper.x, upper.y], parameter: "bbox", with: pool)
        for (value, expected) in zip(box, [-10.0, 40, 20, 50]) { #expect(abs(value - expected) < 1e-9) }
        let swapped = try OGCCRS.epsg4326.boxInCRS84([40, -10, 50, 20], parameter: "bbox", with: pool)
        #expect(swapped == [-10, 40, 20, 50])
    }

    @Test func anUnknownCRSIs400NamingTheParameter() throws {
        #expect(throws: ProblemError.self) { try OGCCRS.named("http://www.opengis.net/def/crs/EPSG/0/2154", parameter: "bbox-crs") }
        do {
            _ = try OGCCRS.named("EPSG:9999", parameter: "crs")
        } catch {
            #expect(error.status == .badRequest && error.problem.errors?.first?.parameter == "crs")
        }
        #expect(try OGCCRS.named(nil, parameter: "crs") == .crs84)
        #expect(try OGCCRS.named("<http://www.opengis.net/def/crs/EPSG/0/3857>", parameter: "crs") == .epsg3857)
    }

    @Test func aTextFilterHasItsLiteralsMovedIntoCRS84() throws {
        let point = Self.mercator(latitude: 45.5, longitude: -122.5)
        let text = "title = 'POINT(1 2)' AND S_INTERSECTS(geometry, POINT(\(point.x) \(point.y))) OR S_WITHIN(geometry, BBOX(\(point.x), \(point.y), 0, 0))"
        let moved = try OGCCRS.epsg3857.filterInCRS84(text: text, with: pool)
        #expect(moved == "title = 'POINT(1 2)' AND S_INTERSECTS(geometry, POINT(-122.5 45.5)) OR S_WITHIN(geometry, BBOX(-122.5, 45.5, 0, 0))", "\(moved)")
        let polygon = "S_WITHIN(geometry,POLYGON((45 -122,46 -122,46 -121,45 -122)))"
        #expect(try OGCCRS.epsg4326.filterInCRS84(text: polygon, with: pool) == "S_WITHIN(geometry,POLYGON((-122 45,-122 46,-121 46,-122 45)))")
    }

    @Test func aJSONFilterHasItsLiteralsMovedIntoCRS84() throws {
        let filter: JSONValue = .object([
            "op": .string("s_intersects"),
            "args": .array([
                .object(["property": .string("geometry")]),
                .object(["type": .string("Point"), "coordinates": .array([.number(45.5), .number(-122.5)])]),
                .object(["bbox": .array([40, -10, 50, 20].map { .number(Double($0)) })]),
            ]),
        ])
        let moved = try OGCCRS.epsg4326.filterInCRS84(json: filter, with: pool)
        guard case .array(let args)? = moved.objectValue?["op"].flatMap({ _ in moved.objectValue?["args"] }) else { Issue.record("\(moved)"); return }
        #expect(args[1].objectValue?["coordinates"] == .array([.number(-122.5), .number(45.5)]))
        #expect(args[2].objectValue?["bbox"] == .array([-10, 40, 20, 50].map { .number(Double($0)) }))
    }
}
