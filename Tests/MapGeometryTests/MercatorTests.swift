import Foundation
import MapGeometry
import Testing

/// Check values from DESIGN.md and the published formulas, computed independently of this code.
@Suite struct MercatorTests {
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String, latitude: Double, longitude: Double, x: Double, y: Double
        var testDescription: String { name }
    }

    static let checks: [Check] = [
        Check(name: "null island", latitude: 0, longitude: 0, x: 134_217_728, y: 134_217_728),
        Check(name: "Portland", latitude: 45.52, longitude: -122.681944, x: 42_739_440.276093155, y: 96_012_095.91233155),
        Check(name: "north-west corner", latitude: 85.0511287798066, longitude: -180, x: 0, y: 0),
        Check(name: "south-east corner", latitude: -85.0511287798066, longitude: 180, x: 268_435_456, y: 268_435_456),
    ]

    @Test(arguments: checks)
    func coordinateBecomesTheKnownMapPoint(_ check: Check) {
        let point = Mercator.mapPoint(for: Coordinate(latitude: check.latitude, longitude: check.longitude))
        #expect(abs(point.x - check.x) < 1e-6)
        #expect(abs(point.y - check.y) < 1e-6)
    }

    @Test(arguments: checks)
    func mapPointBecomesTheKnownCoordinate(_ check: Check) {
        let coordinate = Mercator.coordinate(for: MapPoint(x: check.x, y: check.y))
        #expect(abs(coordinate.latitude - check.latitude) < 1e-9)
        #expect(abs(coordinate.longitude - check.longitude) < 1e-9)
    }

    @Test func tokyoMatchesEPSG3857ScaledToTheMapKitWorld() {
        // EPSG:3857 of Tokyo (35.681236, 139.767125) is (15558805.184639815, 4256848.120219802) m;
        // map points are the same Mercator with the origin moved to the north-west corner and
        // 2^28 points for the 2π·6378137 m circumference.
        let metresPerPoint = 2 * Double.pi * 6_378_137 / 268_435_456
        let point = Mercator.mapPoint(for: Coordinate(latitude: 35.681236, longitude: 139.767125))
        #expect(abs((point.x - 134_217_728) * metresPerPoint - 15_558_805.184639815) < 1e-6)
        #expect(abs((134_217_728 - point.y) * metresPerPoint - 4_256_848.120219802) < 1e-6)
    }

    @Test func latitudesPastTheEdgeClampLikeMapKit() {
        let north = Mercator.mapPoint(for: Coordinate(latitude: 90, longitude: 0))
        let south = Mercator.mapPoint(for: Coordinate(latitude: -89.9, longitude: 0))
        #expect(north.y == Mercator.mapPoint(for: Coordinate(latitude: Mercator.maxLatitude, longitude: 0)).y)
        #expect(abs(north.y) < 1e-6)
        #expect(abs(south.y - Mercator.worldSize) < 1e-6)
        #expect(Mercator.coordinate(for: MapPoint(x: 0, y: -500)).latitude == Mercator.coordinate(for: MapPoint(x: 0, y: 0)).latitude)
    }

    @Test func longitudesOutsideTheWorldWrap() {
        let east = Mercator.coordinate(for: MapPoint(x: Mercator.worldSize + Mercator.worldSize / 4, y: 134_217_728))
        #expect(abs(east.longitude - -90) < 1e-12)
        let west = Mercator.coordinate(for: MapPoint(x: -Mercator.worldSize / 4, y: 134_217_728))
        #expect(abs(west.longitude - 90) < 1e-12)
        #expect(Coordinate.wrapLongitude(180) == 180)
        #expect(Coordinate.wrapLongitude(-180) == -180)
        #expect(Coordinate.wrapLongitude(540) == -180)
    }

    @Test(arguments: [
        // latitude, metres per map point: geographiclib's geodesic length of a 1e-6° step along
        // the parallel, divided by that step in map points.
        (0.0, 0.149_291_070_869_484_87),
        (45.0, 0.105_741_845_942_408_28),
        (60.0, 0.074_833_633_624_304_12),
    ])
    func metersPerMapPointFollowsTheWGS84Parallel(latitude: Double, expected: Double) {
        #expect(abs(Mercator.metersPerMapPoint(atLatitude: latitude) - expected) < 1e-14)
    }
}
