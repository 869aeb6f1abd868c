import Geodesy
import MapGeometry
import Testing
import Tracking

/// Regions drawn as GeoJSON polygons, checked against distances the outline did not place its
/// vertices with: the geodesic inverse from the centre (circles), a 2 m sampling of the line's
/// geodesics (corridors), and GEOS's validity.
@Suite struct RegionOutlineTests {
    /// Every polygon valid, counterclockwise, inside −180…180.
    func checkGeoJSON(_ polygons: [GeoPolygon]) throws {
        for polygon in polygons {
            try polygon.validate()
            #expect(GeoPolygon.signedArea(of: polygon.exterior) > 0)
            #expect(polygon.exterior.allSatisfy { (-180...180).contains($0.longitude) && (-90...90).contains($0.latitude) })
        }
    }

    /// The vertices not on a cut (±180° or a pole's parallel).
    func curveVertices(_ polygons: [GeoPolygon]) -> [Coordinate] {
        polygons.flatMap(\.exterior).filter { abs($0.longitude) != 180 && abs($0.latitude) != 90 }
    }

    @Test(arguments: [(0.0, 0.0, 10.0), (45.52, -122.68, 500), (60, 10, 1_000), (-33.9, 18.4, 100_000), (70, 25, 1_000_000)])
    func aCircleIsItsGeodesicCircleWithinTheTolerance(latitude: Double, longitude: Double, radius: Double) throws {
        let center = Coordinate(latitude: latitude, longitude: longitude)
        let polygons = try RegionShape.circle(center: center, radius: radius).outline()
        try #require(polygons.count == 1)
        try checkGeoJSON(polygons)
        let ring = polygons[0].exterior, tolerance = RegionShape.chordTolerance(radius: radius)
        for vertex in ring {
            #expect(abs(Geodesic.wgs84.inverse(from: center, to: vertex).distance - radius) < 1e-6)
        }
        // The straight edges GeoJSON draws stay within the tolerance of the circle.
        for (a, b) in zip(ring, ring.dropFirst()) {
            for t in [0.25, 0.5, 0.75] {
                let p = Coordinate(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude))
                #expect(radius - Geodesic.wgs84.inverse(from: center, to: p).distance < tolerance)
            }
        }
        let expected = Double.pi * (radius / (2 * tolerance)).squareRoot()
        #expect(Double(ring.count - 1) >= expected * 0.9 && Double(ring.count - 1) <= expected * 2.2, "\(ring.count) vertices")
    }

    @Test(arguments: [179.9, -179.95])
    func aCircleAcrossTheAntimeridianIsCutIntoTwo(longitude: Double) throws {
        let center = Coordinate(latitude: -17, longitude: longitude)
        let polygons = try RegionShape.circle(center: center, radius: 50_000).outline()
        try #require(polygons.count == 2)
        try checkGeoJSON(polygons)
        #expect(polygons.contains { $0.exterior.contains { $0.longitude == 180 } })
        #expect(polygons.contains { $0.exterior.contains { $0.longitude == -180 } })
        for vertex in curveVertices(polygons) {
            #expect(abs(Geodesic.wgs84.inverse(from: center, to: vertex).distance - 50_000) < 1e-6)
        }
        // The cut's vertices lie on the circle too (within the chord tolerance).
        for vertex in polygons.flatMap(\.exterior) where abs(vertex.longitude) == 180 {
            #expect(abs(Geodesic.wgs84.inverse(from: center, to: vertex).distance - 50_000) < 1)
        }
        #expect(try polygons.contains { try $0.contains(Coordinate(latitude: -17, longitude: 179.99)) })
        #expect(try polygons.contains { try $0.contains(Coordinate(latitude: -17, longitude: -179.99)) })
    }

    @Test(arguments: [(89.5, 30.0, 90.0), (-89.2, -170, -90), (88.5, 180, 90)])
    func aCircleHoldingAPoleReachesThePole(latitude: Double, longitude: Double, pole: Double) throws {
        let center = Coordinate(latitude: latitude, longitude: longitude), radius = 200_000.0
        let polygons = try RegionShape.circle(center: center, radius: radius).outline()
        try #require(polygons.count == 1)
        try checkGeoJSON(polygons)
        let ring = polygons[0].exterior
        #expect(ring.contains(Coordinate(latitude: pole, longitude: 180)) && ring.contains(Coordinate(latitude: pole, longitude: -180)))
        for vertex in curveVertices(polygons) {
            #expect(abs(Geodesic.wgs84.inverse(from: center, to: vertex).distance - radius) < 1e-6)
        }
        for probe in stride(from: -175.0, through: 175, by: 25) {
            #expect(try polygons[0].contains(Coordinate(latitude: pole * 0.9999, longitude: probe)))
        }
        // The point opposite the centre, just outside the circle, is outside.
        let outside = Geodesic.wgs84.direct(from: center, azimuth: pole > 0 ? 0 : 180, distance: radius + 2_000).coordinate
        #expect(try !polygons[0].contains(outside))
    }

    @Test(arguments: [(0.0, 20.0), (70.0, 15.0), (-45.0, 179.99)])
    func aCorridorIsTheBufferOfItsLine(latitude: Double, longitude: Double) throws {
        let start = Coordinate(latitude: latitude, longitude: longitude)
        var line = [start]
        for (azimuth, distance) in [(80.0, 800.0), (20, 500), (150, 600)] {
            line.append(Geodesic.wgs84.direct(from: line[line.count - 1], azimuth: azimuth, distance: distance).coordinate)
        }
        line = line.map { Coordinate(latitude: $0.latitude, longitude: Coordinate.wrapLongitude($0.longitude)) }
        let width = 120.0, corridor = try #require(CorridorShape(line: line, width: width))
        let polygons = try RegionShape.corridor(corridor).outline()
        try checkGeoJSON(polygons)
        #expect(polygons.count == (longitude > 179 ? 2 : 1))
        let tolerance = RegionShape.chordTolerance(radius: width / 2)
        for vertex in curveVertices(polygons) {
            // The sampled distance is up to 1 m too long (2 m steps); GEOS's union adds rounding.
            let distance = CorridorShapeTests.sampledDistance(vertex, line, step: 0.5)
            #expect(abs(distance - width / 2) < 0.25 + tolerance, "\(vertex) at \(distance)")
        }
        for point in line {
            #expect(try polygons.contains { try $0.contains(point) })
        }
    }
}
