import Geodesy
import MapGeometry
import Testing

/// The nearest point of a geodesic segment and where a segment crosses the antimeridian, against
/// values from GeographicLib (Python 2.1): the segment's `InverseLine` sampled at 20 000 points,
/// the best refined by ternary search; the crossing by bisection on `LONG_UNROLL` longitudes.
@Suite struct GeodesicSegmentTests {
    struct Nearest: Sendable, CustomTestStringConvertible {
        let start: Coordinate, end: Coordinate, point: Coordinate
        let distance: Double, along: Double, foot: Coordinate
        var testDescription: String { "\(point) to \(start)–\(end)" }

        init(_ a: (Double, Double), _ b: (Double, Double), _ p: (Double, Double), _ distance: Double, _ along: Double, _ foot: (Double, Double)) {
            start = Coordinate(latitude: a.0, longitude: a.1)
            end = Coordinate(latitude: b.0, longitude: b.1)
            point = Coordinate(latitude: p.0, longitude: p.1)
            self.distance = distance
            self.along = along
            self.foot = Coordinate(latitude: foot.0, longitude: foot.1)
        }
    }

    static let nearest: [Nearest] = [
        Nearest((0, 0), (0, 1), (0.5, 0.5), 55_287.152_003_451, 55_659.746_177_441, (0, 0.500_000_007_014)),
        // Behind the start: the equator passes 11 km away, the segment no nearer than its start.
        Nearest((0, 0), (0, 1), (0.1, -0.2), 24_858.547_192_171, 0, (0, 0)),
        Nearest((0, 0), (0, 1), (-0.3, 1.4), 55_525.734_497_368, 111_319.490_793_274, (0, 1)),
        // The geodesic bows north of both ends' latitudes.
        Nearest((60, -10), (62, 20), (63.5, 5), 180_404.735_770_546, 861_795.689_793_650, (61.895_227_552_179, 5.459_918_005_467)),
        Nearest((10, 100), (40, 140), (30, 110), 788_951.957_452_602, 2_321_115.331_109_326, (24.838_121_643_576, 115.499_010_432_819)),
        Nearest((51.5, -0.12), (48.85, 2.35), (50.0, 1.0), 19_545.674_710_501, 183_596.860_130_374, (50.090_240_345_606, 1.234_145_517_486)),
        Nearest((-33.9, 151.2), (-36.85, 174.76), (-40, 165), 416_444.530_948_208, 1_338_562.343_908_593, (-36.278_848_818_506, 165.606_055_394_632)),
        // Across the antimeridian, the foot on the far side.
        Nearest((10, 179.5), (12, -179.5), (11.2, 179.9), 19_403.369_878_936, 138_412.234_126_069, (11.122_327_106_001, -179.940_723_297_619)),
        // Metres apart, as phone fixes are.
        Nearest((0.000_01, 0), (0, 0.0001), (0.000_02, 0.000_05), 1.650_491_785, 5.429_421_614, (0.000_005_146_552, 0.000_048_534_478)),
    ]

    @Test(arguments: nearest)
    func nearestPointMatchesGeographicLib(_ check: Nearest) {
        let found = GeodesicSegment(from: check.start, to: check.end).nearest(to: check.point)
        #expect(abs(found.distance - check.distance) < 1e-6, "distance \(found.distance)")
        // The distance is flat at the foot (it grows with the square of the way along), so a search
        // by distance alone places the foot of a segment hundreds of km long only to a few cm.
        #expect(abs(found.along - check.along) < 0.05, "along \(found.along)")
        #expect(abs(found.coordinate.latitude - check.foot.latitude) < 1e-6)
        #expect(abs(found.coordinate.longitude - check.foot.longitude) < 1e-6)
    }

    @Test(arguments: nearest.filter { $0.along > 0 && $0.along < GeodesicSegment(from: $0.start, to: $0.end).length })
    func theWayToAnInnerFootMeetsTheLineAtARightAngle(_ check: Nearest) {
        let segment = GeodesicSegment(from: check.start, to: check.end)
        let found = segment.nearest(to: check.point)
        let line = segment.position(at: found.along).finalAzimuth
        let toPoint = Geodesic.wgs84.inverse(from: found.coordinate, to: check.point).initialAzimuth
        let angle = abs((toPoint - line + 540).truncatingRemainder(dividingBy: 360) - 180)
        #expect(abs(angle - 90) < 1e-7, "\(angle)°")
    }

    @Test func aPointOnTheSegmentIsAtNoDistance() {
        let segment = GeodesicSegment(from: Coordinate(latitude: 40, longitude: -74), to: Coordinate(latitude: 41, longitude: -70))
        let middle = segment.position(at: segment.length * 0.3).coordinate
        #expect(segment.distance(to: middle) < 1e-6)
    }

    @Test func aSegmentOfNoLengthIsItsPoint() {
        let point = Coordinate(latitude: 45, longitude: 7)
        let segment = GeodesicSegment(from: point, to: point)
        let other = Coordinate(latitude: 45.001, longitude: 7.001)
        #expect(segment.distance(to: other) == Geodesic.wgs84.inverse(from: other, to: point).distance)
    }

    struct Crossing: Sendable, CustomTestStringConvertible {
        let start: Coordinate, end: Coordinate
        let latitude: Double, along: Double, eastward: Bool
        var testDescription: String { "\(start)–\(end)" }

        init(_ a: (Double, Double), _ b: (Double, Double), _ latitude: Double, _ along: Double, eastward: Bool) {
            start = Coordinate(latitude: a.0, longitude: a.1)
            end = Coordinate(latitude: b.0, longitude: b.1)
            self.latitude = latitude
            self.along = along
            self.eastward = eastward
        }
    }

    static let crossings: [Crossing] = [
        Crossing((10, 179.5), (12, -179.5), 11.003_815_631_590, 123_790.349_489_044, eastward: true),
        Crossing((-20, -170), (-10, 175), -13.543_702_450_048, 1_282_731.240_481_423, eastward: false),
        Crossing((70, 170), (75, -150), 72.363_679_006_845, 445_512.685_866_742, eastward: true),
        Crossing((0, 179.999), (0, -179.999), 0, 111.319_490_792, eastward: true),
    ]

    @Test(arguments: crossings)
    func antimeridianCrossingMatchesGeographicLib(_ check: Crossing) throws {
        let crossing = try #require(GeodesicSegment(from: check.start, to: check.end).antimeridianCrossing())
        #expect(abs(crossing.latitude - check.latitude) < 1e-9)
        #expect(abs(crossing.along - check.along) < 1e-6)
        #expect(crossing.eastward == check.eastward)
    }

    @Test(arguments: [
        ((10.0, 170.0), (12.0, 179.0)), ((0, -179.5), (1, -170)), ((-5, 180), (-6, 179)), ((80, 0), (80, 180)), ((60, -30), (61, 30)),
    ])
    func segmentsOnOneSideDoNotCross(_ a: (Double, Double), _ b: (Double, Double)) {
        let segment = GeodesicSegment(from: Coordinate(latitude: a.0, longitude: a.1), to: Coordinate(latitude: b.0, longitude: b.1))
        #expect(segment.antimeridianCrossing() == nil)
    }
}
