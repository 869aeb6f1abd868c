import Geodesy
import MapGeometry
import Testing

/// Douglas–Peucker on geodesic distances to segments; distances quoted from GeographicLib.
@Suite struct GeodesicSimplifierTests {
    private func line(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(latitude: $0.0, longitude: $0.1) }
    }

    // The middle point is 5.528 713 791 m north of the segment (GeographicLib: the equator point
    // below it, by symmetry the foot).
    @Test(arguments: [(5.52, [0, 1, 2]), (5.53, [0, 2]), (5.528_713_791 + 1e-6, [0, 2]), (0, [0, 1, 2])] as [(Double, [Int])])
    func aPointIsDroppedWhenWithinTheTolerance(tolerance: Double, kept: [Int]) {
        let points = line([(0, 0), (0.000_05, 0.0005), (0, 0.001)])
        #expect(GeodesicSimplifier.keep(points, tolerance: tolerance) == kept)
    }

    @Test func aRetracedUTurnIsKept() {
        // East 222 m, then back west 111 m along the same equator: the great circle through the
        // kept ends holds the turn, the segment between them is 111.319 m short of it.
        let points = line([(0, 0), (0, 0.002), (0, 0.001)])
        #expect(GeodesicSimplifier.keep(points, tolerance: 111) == [0, 1, 2])
        #expect(GeodesicSimplifier.keep(points, tolerance: 111.32) == [0, 2])
    }

    @Test func repeatedPositionsGoAtToleranceZero() {
        let points = line([(1, 1), (1, 1), (1, 1.001), (1, 1.001), (1.001, 1.001)])
        #expect(GeodesicSimplifier.keep(points, tolerance: 0) == [0, 2, 4])
    }

    @Test func shortLinesAreKeptWhole() {
        #expect(GeodesicSimplifier.keep([], tolerance: 5) == [])
        #expect(GeodesicSimplifier.keep(line([(1, 2)]), tolerance: 5) == [0])
        #expect(GeodesicSimplifier.keep(line([(1, 2), (1, 2)]), tolerance: 5) == [0, 1])
    }

    @Test(arguments: [(10, [0, 1, 2, 3, 4, 5, 6]), (11.1, [0, 2, 3, 4, 5, 6]), (22.2, [0, 2, 3, 4, 6]), (100, [0, 3, 6]), (111, [0, 6])] as [(Double, [Int])])
    func theSectionSplitsAtItsFarthestPoint(tolerance: Double, kept: [Int]) {
        // Teeth of 0.0001°, 0.001° and 0.0002° of latitude off the equator (11.06, 110.57 and
        // 22.11 m); the fixes between them lie about 70 m from the slanted segments that span them.
        let points = line([(0, 0), (0.0001, 0.001), (0, 0.002), (0.001, 0.003), (0, 0.004), (0.0002, 0.005), (0, 0.006)])
        #expect(GeodesicSimplifier.keep(points, tolerance: tolerance) == kept)
    }

    @Test func everyDroppedPointLiesWithinTheToleranceOfItsKeptSegment() {
        // A deterministic wander of 2 000 fixes a few metres apart, checked by sampling each kept
        // segment every 5 cm with PROJ's direct problem (not the foot search under test).
        var points: [Coordinate] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var (latitude, longitude, heading) = (48.2, 16.37, 0.0)
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            heading += Double(Int64(state >> 40) % 41 - 20)
            let next = Geodesic.wgs84.direct(from: Coordinate(latitude: latitude, longitude: longitude), azimuth: heading, distance: 8).coordinate
            (latitude, longitude) = (next.latitude, next.longitude)
            points.append(next)
        }
        let tolerance = 5.0
        let kept = GeodesicSimplifier.keep(points, tolerance: tolerance)
        #expect(kept.count < points.count / 2)
        for (first, last) in zip(kept, kept.dropFirst()) where last - first > 1 {
            let segment = GeodesicSegment(from: points[first], to: points[last])
            let samples = (0...Int(segment.length / 0.05) + 1).map { segment.position(at: min(segment.length, Double($0) * 0.05)).coordinate }
            for index in (first + 1)..<last {
                let sampled = samples.map { Geodesic.wgs84.inverse(from: points[index], to: $0).distance }.min()!
                // Samples 5 cm apart come at most 2.5 cm further than the nearest point.
                let exact = segment.distance(to: points[index])
                #expect(exact <= tolerance && sampled <= tolerance + 0.025, "fix \(index) lies \(exact) m from its segment")
                #expect(exact <= sampled + 1e-6 && sampled - exact <= 0.025 + 1e-6, "\(exact) vs sampled \(sampled)")
            }
        }
    }
}
