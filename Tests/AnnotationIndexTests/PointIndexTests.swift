import Annotations
import Foundation
import Geodesy
import MapGeometry
import Testing
import TestSupport
@testable import AnnotationIndex
import Timeline

/// The point index against a brute-force scan measured with PROJ's geodesic: nearest (order,
/// ties by id, maxDistance, a predicate) and boxes, across the antimeridian, at the poles, on
/// Mercator's clamped edge rows, and after writes that cross the merge threshold.
@Suite struct PointIndexTests {
    /// Blobs at 180°, near both poles, on the ±85.05° edge and in a city; a stack; exact ±180°;
    /// the rest uniform on the sphere.
    static func coordinates(_ count: Int, using random: inout SeededGenerator) -> [Coordinate] {
        let centres = [(-16.8, 179.99), (89.9, 10.0), (-89.95, -120.0), (85.0511, 45.0), (-85.06, 0.0), (48.85, 2.35), (0.0, 0.0)]
        return (0..<count).map { _ in
            switch Int.random(in: 0..<10, using: &random) {
            case 0...4:
                let (lat, lon) = centres.randomElement(using: &random)!
                let spread = [0.0005, 0.02, 0.5].randomElement(using: &random)!
                let latitude = min(90, max(-90, lat + Double.random(in: -spread...spread, using: &random)))
                return Coordinate(latitude: latitude, longitude: Coordinate.wrapLongitude(lon + Double.random(in: -spread...spread, using: &random)))
            case 5:
                return Coordinate(latitude: 12.5, longitude: 100.25)
            case 6:
                return Coordinate(latitude: Double.random(in: -90...90, using: &random), longitude: Bool.random(using: &random) ? 180 : -180)
            default:
                let latitude = asin(Double.random(in: -1...1, using: &random)) * 180 / .pi
                return Coordinate(latitude: latitude, longitude: Double.random(in: -180..<180, using: &random))
            }
        }
    }

    static func entry(_ n: Int, _ coordinate: Coordinate, version: Int = 1) -> ThinningEntry {
        ThinningEntry(id: testID(n), coordinate: coordinate, kind: nil, clusteringIdentifier: nil, displayPriority: 500, version: version)
    }

    /// Every live point measured, sorted by (distance, id).
    static func bruteNearest(_ live: [Int: Coordinate], to origin: Coordinate, maxDistance: Double, admits: (Coordinate) -> Bool) -> [(AnnotationID, Double)] {
        live.compactMap { n, coordinate -> (AnnotationID, Double)? in
            guard admits(coordinate) else { return nil }
            let distance = Geodesic.wgs84.inverse(from: origin, to: coordinate).distance
            return distance <= maxDistance ? (testID(n), distance) : nil
        }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    }

    static func check(_ index: PointIndex, _ live: [Int: Coordinate], queries: Int, using random: inout SeededGenerator) {
        let probes = coordinates(queries, using: &random)
        for (q, origin) in probes.enumerated() {
            let k = [1, 3, 10, 40].randomElement(using: &random)!
            let maxDistance = q % 3 == 0 ? Double.random(in: 1...3_000_000, using: &random) : .infinity
            let northern = q % 4 == 1
            let admits = { (c: Coordinate) in !northern || c.latitude >= 0 }
            var search = index.nearest(to: origin, maxDistance: maxDistance, admitting: admits)
            var got: [(AnnotationID, Double)] = []
            while got.count < k, let next = search.next() { got.append((next.reference.id, next.distance)) }
            let expected = Array(bruteNearest(live, to: origin, maxDistance: maxDistance, admits: admits).prefix(k))
            #expect(got.map(\.0) == expected.map(\.0), "nearest \(k) to \(origin) within \(maxDistance) (northern only: \(northern))")
            #expect(zip(got, expected).allSatisfy { $0.1 == $1.1 })
        }
        for _ in 0..<queries {
            let south = Double.random(in: -90...90, using: &random), height = [0.01, 1, 30, 180].randomElement(using: &random)!
            let west = Double.random(in: -180...180, using: &random), width = [0.01, 1, 40, 359].randomElement(using: &random)!
            // Now and then a box that ends on the antimeridian.
            let east = Int.random(in: 0..<8, using: &random) == 0 ? 180 : Coordinate.wrapLongitude(west + width)
            let box = BoundingBox(west: west, south: south, east: east, north: min(90, south + height))
            let got = index.references(in: box).map(\.id)
            let expected = live.filter { box.contains($0.value) }.map { testID($0.key) }.sorted()
            #expect(got == expected, "box \(box)")
        }
    }

    /// Of every size: none, one, fewer than a radix sort takes (512), and thousands.
    @Test(arguments: [0, 1, 200, 3_000])
    func nearestAndBoxesMatchABruteForceScan(count: Int) {
        var random = SeededGenerator(seed: 17)
        let points = Self.coordinates(count, using: &random)
        // In no order (the index takes any): the stack's coincident points must still come by id.
        let index = PointIndex(entries: points.enumerated().map { Self.entry($0, $1) }.shuffled(using: &random))
        let live = Dictionary(uniqueKeysWithValues: points.enumerated().map { ($0, $1) })
        #expect(index.count == live.count)
        let run = index.snapshot().run
        #expect(run.codes.indices.dropFirst().allSatisfy { (run.codes[$0 - 1], run.ids[$0 - 1]) < (run.codes[$0], run.ids[$0]) }, "the run in (code, id) order")
        Self.check(index, live, queries: 150, using: &random)
    }

    /// Longitude 180 is stored where −180 is (map x wraps): boxes ending on the meridian find both sides as `contains` says.
    @Test func boxesEndingOnTheAntimeridianFindItsPoints() {
        let points = [Coordinate(latitude: 10, longitude: 180), Coordinate(latitude: 10, longitude: -180), Coordinate(latitude: 10, longitude: 179.5),
                      Coordinate(latitude: 89.99, longitude: 180), Coordinate(latitude: -89.99, longitude: -180)]
        let index = PointIndex(entries: points.enumerated().map { Self.entry($0, $1) })
        for box in [BoundingBox(west: 170, south: 0, east: 180, north: 20), BoundingBox(west: -180, south: 0, east: -170, north: 20),
                    BoundingBox(west: 180, south: -90, east: 180, north: 90), BoundingBox(west: -180, south: -90, east: -180, north: 90),
                    BoundingBox(west: 179, south: -90, east: -179, north: 90), BoundingBox(west: -180, south: -90, east: 180, north: 90)] {
            let expected = points.enumerated().filter { box.contains($0.element) }.map { testID($0.offset) }.sorted()
            #expect(index.references(in: box).map(\.id) == expected, "\(box)")
        }
    }

    @Test func writesAreSeenBeforeAndAfterAMerge() {
        var random = SeededGenerator(seed: 23)
        var live = Dictionary(uniqueKeysWithValues: Self.coordinates(2_000, using: &random).enumerated().map { ($0, $1) })
        let index = PointIndex(entries: live.map { Self.entry($0, $1) })
        var next = live.count
        var versions = Dictionary(uniqueKeysWithValues: live.keys.map { ($0, 1) })
        // Batches of moves, deletions and new points; the pending writes pass the merge threshold once.
        for round in 0..<6 {
            var upserts: [ThinningEntry] = [], removals: [AnnotationID] = []
            let fresh = Self.coordinates(500, using: &random)
            for (i, coordinate) in fresh.enumerated() {
                switch i % 3 {
                case 0:
                    live[next] = coordinate
                    versions[next] = 1
                    upserts.append(Self.entry(next, coordinate))
                    next += 1
                case 1:
                    guard let n = live.keys.randomElement(using: &random) else { continue }
                    live[n] = coordinate
                    versions[n, default: 1] += 1
                    upserts.removeAll { $0.id == testID(n) }
                    upserts.append(Self.entry(n, coordinate, version: versions[n]!))
                default:
                    guard let n = live.keys.randomElement(using: &random) else { continue }
                    live[n] = nil
                    removals.append(testID(n))
                    upserts.removeAll { $0.id == testID(n) }
                }
            }
            index.apply(upserts: upserts, removals: removals)
            #expect(index.count == live.count, "round \(round)")
            // Each reference carries the version last written.
            let world = index.references(in: BoundingBox(west: -180, south: -90, east: 180, north: 90))
            #expect(world.count == live.count && world.allSatisfy { $0.version == versions[Int($0.id.low & 0xFFFF_FFFF)] })
            Self.check(index, live, queries: 25, using: &random)
        }
    }

    @Test func boundsNeverExceedTheGeodesicDistance() {
        var random = SeededGenerator(seed: 5)
        let points = Self.coordinates(4_000, using: &random)
        for (a, b) in zip(points, points.shuffled(using: &random)) {
            let exact = Geodesic.wgs84.inverse(from: a, to: b).distance
            let origin = DistanceBound.Origin(a)
            #expect(origin.bound(latitude: b.latitude, longitude: b.longitude) <= exact)
            // Any box holding b is no farther than b.
            let south = max(-90, b.latitude - Double.random(in: 0...5, using: &random)), north = min(90, b.latitude + Double.random(in: 0...5, using: &random))
            let west = b.longitude - Double.random(in: 0...90, using: &random), east = b.longitude + Double.random(in: 0...90, using: &random)
            #expect(origin.bound(south: south, north: north, west: west, east: east) <= exact, "\(a) → box around \(b)")
        }
    }
}
