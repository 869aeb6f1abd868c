import TestSupport
import Geodesy
import MapGeometry
import Testing
import Tracking

/// Region geometry against independent references: GEOS for containment, PROJ's geodesics for distances.
@Suite struct RegionShapeTests {
    static let portland = Coordinate(latitude: 45.52, longitude: -122.681944)

    static func towards(_ azimuth: Double, _ metres: Double, from origin: Coordinate = portland) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: metres).coordinate
    }

    /// A concave "L" with a hole, about 4 km across.
    static let polygon: GeoPolygon = {
        let (w, s) = (-122.72, 45.50)
        let ring = [(w, s), (w + 0.05, s), (w + 0.05, s + 0.015), (w + 0.02, s + 0.015), (w + 0.02, s + 0.04), (w, s + 0.04), (w, s)]
        let hole = [(w + 0.005, s + 0.005), (w + 0.012, s + 0.005), (w + 0.012, s + 0.012), (w + 0.005, s + 0.012), (w + 0.005, s + 0.005)]
        return GeoPolygon(
            exterior: ring.map { Coordinate(latitude: $0.1, longitude: $0.0) },
            holes: [hole.map { Coordinate(latitude: $0.1, longitude: $0.0) }]
        )
    }()

    @Test func polygonContainmentAgreesWithGEOS() throws {
        let shape = try #require(PolygonShape(Self.polygon))
        var random = SeededGenerator(seed: 6)
        for _ in 0..<2_000 {
            let point = Coordinate(latitude: 45.49 + random.unit() * 0.06, longitude: -122.73 + random.unit() * 0.07)
            let distance = shape.signedDistance(to: point)
            guard abs(distance) > 0.01 else { continue }  // on the boundary either answer is fine
            #expect((distance < 0) == (try Self.polygon.contains(point)), "\(point)")
        }
    }

    /// Rings that cross, or do not close, still say where inside is: the even-odd rule (SVG's
    /// `evenodd` fill), which GEOS's MakeValid agrees with for a bow tie: two triangles.
    @Test func aBowTieIsTwoTrianglesAndAnOpenRingCloses() throws {
        let ring = { (points: [(Double, Double)]) in points.map { Coordinate(latitude: $0.1, longitude: $0.0) } }
        let bowTie = try #require(PolygonShape(GeoPolygon(exterior: ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]))))
        // The triangles meet at (0.5, 0.5): their insides are left and right of it, not above or below.
        #expect(bowTie.signedDistance(to: Coordinate(latitude: 0.5, longitude: 0.1)) < 0)
        #expect(bowTie.signedDistance(to: Coordinate(latitude: 0.5, longitude: 0.9)) < 0)
        #expect(bowTie.signedDistance(to: Coordinate(latitude: 0.1, longitude: 0.5)) > 0)
        #expect(bowTie.signedDistance(to: Coordinate(latitude: 0.9, longitude: 0.5)) > 0)
        let open = try #require(PolygonShape(GeoPolygon(exterior: ring([(0, 0), (1, 0), (1, 1), (0, 1)]))))
        #expect(open.signedDistance(to: Coordinate(latitude: 0.5, longitude: 0.5)) < 0)
        // A line encloses nothing: no point is inside it.
        let line = try #require(PolygonShape(GeoPolygon(exterior: ring([(0, 0), (1, 1), (2, 2), (0, 0)]))))
        #expect(line.signedDistance(to: Coordinate(latitude: 1, longitude: 1)) >= 0)
        #expect(PolygonShape(GeoPolygon(exterior: [])) == nil)
    }

    @Test func polygonDistancesMatchGeodesicsToTheEdges() throws {
        // A 0.02° square around Portland; points straight north of its top edge's midpoint, straight
        // east of its east edge's midpoint, and inside, at geodesic distances from those edges.
        let (lat, lon) = (Self.portland.latitude, Self.portland.longitude)
        let square = GeoPolygon(exterior: [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1), (-1, -1)].map {
            Coordinate(latitude: lat + $0.1 * 0.01, longitude: lon + $0.0 * 0.01)
        })
        let shape = RegionShape.polygon(try #require(PolygonShape(square)))
        let top = Coordinate(latitude: lat + 0.01, longitude: lon)
        let east = Coordinate(latitude: lat, longitude: lon + 0.01)
        for metres in [5.0, 50, 300] {
            #expect(abs(shape.signedDistance(to: Self.towards(0, metres, from: top)) - metres) < metres * 0.002 + 0.01)
            #expect(abs(shape.signedDistance(to: Self.towards(90, metres, from: east)) - metres) < metres * 0.002 + 0.01)
            #expect(abs(shape.signedDistance(to: Self.towards(180, metres, from: top)) + metres) < metres * 0.002 + 0.01)
        }
    }

    @Test func circleDistanceIsGeodesicFromTheCentreMinusTheRadius() {
        let shape = RegionShape.circle(center: Self.portland, radius: 1_000)
        #expect(abs(shape.signedDistance(to: Self.towards(37, 1_250)) - 250) < 1e-6)
        #expect(abs(shape.signedDistance(to: Self.towards(200, 400)) + 600) < 1e-6)
    }

    @Test func circleBoundsHoldTheWholeCircle() {
        for (center, radius) in [(Self.portland, 1_000.0), (Coordinate(latitude: 70, longitude: 179.99), 20_000), (Coordinate(latitude: -33.9, longitude: 18.4), 10)] {
            let bounds = RegionShape.circle(center: center, radius: radius).bounds
            for azimuth in stride(from: 0.0, to: 360, by: 5) {
                #expect(bounds.contains(Self.towards(azimuth, radius, from: center)), "\(center) \(azimuth)")
            }
        }
    }

    @Test func aCircleAroundAPoleCoversEveryLongitudeUpToIt() {
        let bounds = RegionShape.circle(center: Coordinate(latitude: 89.99, longitude: 0), radius: 2_000).bounds
        for point in [Coordinate(latitude: 89.999, longitude: 0), Coordinate(latitude: 89.995, longitude: 170), Coordinate(latitude: 90, longitude: -90)] {
            #expect(bounds.contains(point))
        }
        let south = RegionShape.circle(center: Coordinate(latitude: -89.995, longitude: 45), radius: 1_000).bounds
        #expect(south.contains(Coordinate(latitude: -89.999, longitude: -135)))
    }

    @Test func theIndexFindsExactlyTheBoxesHoldingAPoint() {
        var index = RegionIndex()
        var random = SeededGenerator(seed: 9)
        var boxes: [String: BoundingBox] = [:]
        for i in 0..<3_000 {
            // From 50 m to 200 km across, some across the antimeridian.
            let size = [0.0005, 0.005, 0.05, 0.5, 2][i % 5] * (0.5 + random.unit())
            let west = -180 + random.unit() * 360, south = -60 + random.unit() * 120
            let box = BoundingBox(west: west, south: south, east: Coordinate.wrapLongitude(west + size), north: south + size)
            boxes["r\(i)"] = box
            index.insert("r\(i)", bounds: box)
        }
        for i in stride(from: 0, to: 3_000, by: 7) {
            index.remove("r\(i)")
            boxes["r\(i)"] = nil
        }
        #expect(index.count == boxes.count)
        for _ in 0..<3_000 {
            // Points inside a random box and anywhere.
            let box = boxes.randomElement(using: &random)!.value
            let inside = Coordinate(latitude: box.south + (box.north - box.south) * random.unit(),
                                    longitude: Coordinate.wrapLongitude(box.west + 0.0001))
            for point in [inside, Coordinate(latitude: -60 + random.unit() * 120, longitude: -180 + random.unit() * 360)] {
                let expected = Set(boxes.filter { $0.value.contains(point) }.keys)
                #expect(Set(index.candidates(at: point)) == expected)
            }
        }
    }
}
