import Geodesy
import MapGeometry
import Testing
import TestSupport
import Tracking

/// The passage of a segment through a region against a dense sampling of the same geodesic (every
/// 0.25 m): the passage exists when the sampling comes `depth` inside with both ends outside, and
/// its entry and exit are where the sampling first and last is inside.
@Suite struct SegmentPassageTests {
    /// Signed distances every `step` metres along the geodesic from `a` to `b`: (position, distance).
    static func sampled(_ shape: RegionShape, _ a: Coordinate, _ b: Coordinate, step: Double = 0.25) -> [(Double, Double)] {
        let inverse = Geodesic.wgs84.inverse(from: a, to: b)
        let count = Int((inverse.distance / step).rounded(.up))
        return (0...count).map { i in
            let s = min(Double(i) * step, inverse.distance)
            return (s, shape.signedDistance(to: Geodesic.wgs84.direct(from: a, azimuth: inverse.initialAzimuth, distance: s).coordinate))
        }
    }

    static func check(_ shape: RegionShape, _ a: Coordinate, _ b: Coordinate, depth: Double, _ label: String) -> Bool? {
        let samples = sampled(shape, a, b)
        let deepest = samples.map(\.1).min()!
        let passage = SegmentPassage.through(shape, from: a, to: b, depth: depth)
        // Too close to call at the sampling's resolution either way.
        if abs(deepest + depth) < 0.5 || abs(samples.first!.1) < 0.5 || abs(samples.last!.1) < 0.5 { return nil }
        let expected = samples.first!.1 > 0 && samples.last!.1 > 0 && deepest <= -depth
        #expect((passage != nil) == expected, "\(label): deepest \(deepest), depth \(depth)")
        guard let passage, expected else { return expected }
        let inside = samples.filter { $0.1 <= 0 }.map(\.0)
        #expect(abs(passage.entry - inside.first!) <= 0.5, "\(label): entry \(passage.entry) vs \(inside.first!)")
        #expect(abs(passage.exit - inside.last!) <= 0.5, "\(label): exit \(passage.exit) vs \(inside.last!)")
        #expect(passage.entry < passage.exit && passage.exit <= passage.length)
        return true
    }

    @Test func circlesAgainstADenseSampling() {
        var random = SeededGenerator(seed: 41)
        var passages = 0, misses = 0
        for i in 0..<120 {
            let centre = Coordinate(latitude: Double.random(in: -70...70, using: &random), longitude: Double.random(in: -180..<180, using: &random))
            let radius = Double.random(in: 20...400, using: &random)
            let shape = RegionShape.circle(center: centre, radius: radius)
            // A segment of up to 2 km passing at a random offset from the centre.
            let heading = Double.random(in: 0..<360, using: &random), offset = Double.random(in: -1.3...1.3, using: &random) * radius
            let abeam = Geodesic.wgs84.direct(from: centre, azimuth: heading + 90, distance: offset).coordinate
            let reach = radius + Double.random(in: 20...1_000, using: &random)
            let a = Geodesic.wgs84.direct(from: abeam, azimuth: heading, distance: -reach).coordinate
            let b = Geodesic.wgs84.direct(from: abeam, azimuth: heading, distance: reach).coordinate
            switch Self.check(shape, a, b, depth: Double.random(in: 0...60, using: &random), "circle \(i)") {
            case true?: passages += 1
            case false?: misses += 1
            case nil: break
            }
        }
        #expect(passages > 20 && misses > 20, "both kinds of case: \(passages) passages, \(misses) misses")
    }

    @Test func polygonsAgainstADenseSampling() throws {
        var random = SeededGenerator(seed: 43)
        var passages = 0
        for i in 0..<60 {
            let latitude = Double.random(in: -75...75, using: &random), longitude = Double.random(in: -179...179, using: &random)
            // A concave "L" about 600 m across.
            let (w, s, d) = (longitude, latitude, 0.006)
            let ring = [(w, s), (w + d, s), (w + d, s + d / 3), (w + d / 3, s + d / 3), (w + d / 3, s + d), (w, s + d), (w, s)]
            let shape = RegionShape.polygon(try #require(PolygonShape(GeoPolygon(exterior: ring.map { Coordinate(latitude: $0.1, longitude: $0.0) }))))
            let a = Coordinate(latitude: s + Double.random(in: -0.01...0.016, using: &random), longitude: w - 0.01)
            let b = Coordinate(latitude: s + Double.random(in: -0.01...0.016, using: &random), longitude: w + 0.016)
            if Self.check(shape, a, b, depth: Double.random(in: 0...30, using: &random), "polygon \(i)") == true { passages += 1 }
        }
        #expect(passages > 10)
    }

    /// The quick rejection's bounds hold the geodesic (PROJ's) between them, near and far, at
    /// every latitude.
    @Test func theSphereBoundsHoldTheGeodesic() {
        var generator = SeededGenerator(seed: 18)
        for index in 0..<5_000 {
            let a = Coordinate(latitude: Double.random(in: -89.9...89.9, using: &generator), longitude: Double.random(in: -180...180, using: &generator))
            let reach = [0.001, 0.1, 5, 60][index % 4]
            let b = Coordinate(latitude: min(89.9, max(-89.9, a.latitude + Double.random(in: -reach...reach, using: &generator))),
                               longitude: Coordinate.wrapLongitude(a.longitude + Double.random(in: -reach...reach, using: &generator)))
            let geodesic = Geodesic.wgs84.inverse(from: a, to: b).distance
            #expect(GeodesicBounds.upper(a, b) >= geodesic && GeodesicBounds.lower(a, b) <= geodesic, "\(a) → \(b)")
        }
    }

    @Test func aFixInsideIsNoPassage() {
        let centre = Coordinate(latitude: 45, longitude: 7)
        let shape = RegionShape.circle(center: centre, radius: 300)
        #expect(SegmentPassage.through(shape, from: centre, to: Geodesic.wgs84.direct(from: centre, azimuth: 90, distance: 2_000).coordinate, depth: 0) == nil)
        // 5 minutes at 50 km/h, straight through the middle: in and out.
        let a = Geodesic.wgs84.direct(from: centre, azimuth: 270, distance: 2_000).coordinate
        let b = Geodesic.wgs84.direct(from: centre, azimuth: 90, distance: 2_166).coordinate
        let passage = SegmentPassage.through(shape, from: a, to: b, depth: 50)
        #expect(passage.map { abs($0.entry - 1_700) < 0.5 && abs($0.exit - 2_300) < 0.5 } == true, "\(String(describing: passage))")
    }
}
