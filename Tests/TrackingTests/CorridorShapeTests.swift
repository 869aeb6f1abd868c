import Geodesy
import MapGeometry
import Testing
import TestSupport
import Tracking

/// Corridors against a dense sampling of their line's geodesics (every 2 m): the signed distance
/// of random points near the line, at 70° N as at the equator and across 180°; the box holds them.
@Suite struct CorridorShapeTests {
    /// Geodesic metres from `p` to the line, by sampling each segment's geodesic every `step` metres
    /// (at most step / 2 too long).
    static func sampledDistance(_ p: Coordinate, _ line: [Coordinate], step: Double = 2) -> Double {
        var best = Double.infinity
        for (a, b) in zip(line, line.dropFirst()) {
            let segment = Geodesic.wgs84.inverse(from: a, to: b)
            let count = Int((segment.distance / step).rounded(.up))
            for i in 0...count {
                let point = Geodesic.wgs84.direct(from: a, azimuth: segment.initialAzimuth, distance: min(Double(i) * step, segment.distance)).coordinate
                best = min(best, Geodesic.wgs84.inverse(from: p, to: point).distance)
            }
        }
        return best
    }

    @Test(arguments: [(0.0, 20.0), (70.0, 15.0), (-45.0, 179.99)])
    func distancesMatchASamplingOfTheLine(latitude: Double, longitude: Double) throws {
        var random = SeededGenerator(seed: UInt64(abs(latitude) * 10 + 7))
        // A route of 4 legs of 300–800 m, turning.
        var line = [Coordinate(latitude: latitude, longitude: longitude)]
        var heading = Double.random(in: 0..<360, using: &random)
        for _ in 0..<4 {
            heading += Double.random(in: -60...60, using: &random)
            line.append(Geodesic.wgs84.direct(from: line.last!, azimuth: heading, distance: Double.random(in: 300...800, using: &random)).coordinate)
        }
        let corridor = try #require(CorridorShape(line: line, width: 200))
        for _ in 0..<40 {
            let anchor = line.randomElement(using: &random)!
            let p = Geodesic.wgs84.direct(from: anchor, azimuth: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...600, using: &random)).coordinate
            let expected = Self.sampledDistance(p, line) - 100
            #expect(abs(corridor.signedDistance(to: p) - expected) <= 1.1, "\(p): \(corridor.signedDistance(to: p)) vs \(expected)")
            #expect(expected > 0 || corridor.bounds.contains(p), "the box holds every point inside")
        }
    }

    @Test func outOfRangeCorridorsAreRefused() {
        let a = Coordinate(latitude: 1, longitude: 1), b = Coordinate(latitude: 1.01, longitude: 1)
        #expect(CorridorShape(line: [a], width: 100) == nil)
        #expect(CorridorShape(line: [a, b], width: 0.5) == nil)
        #expect(CorridorShape(line: [a, b], width: 50_001) == nil)
        #expect(CorridorShape(line: [a, b], width: .nan) == nil)
        #expect(CorridorShape(line: [a, b], width: 1) != nil)
        #expect(throws: GeodesyError.self) { try GeoLine([a, a]).validate() }
        #expect(throws: Never.self) { try GeoLine([a, b]).validate() }
    }
}
