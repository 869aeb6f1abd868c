import Geodesy
import MapGeometry
import Testing

/// Check values from GeographicLib (Karney), computed independently of PROJ's copy.
@Suite struct GeodesicTests {
    let tokyo = Coordinate(latitude: 35.681236, longitude: 139.767125)
    let osaka = Coordinate(latitude: 34.702485, longitude: 135.495951)

    @Test func tokyoToOsakaMatchesGeographicLib() {
        let result = Geodesic.wgs84.inverse(from: tokyo, to: osaka)
        #expect(abs(result.distance - 403_826.686_057_283_8) < 1e-6)
        #expect(abs(result.initialAzimuth - -104.358_614_061_189_1) < 1e-9)
        #expect(abs(result.finalAzimuth - -106.821_015_949_112_78) < 1e-9)
    }

    @Test func directInvertsInverse() {
        let inverse = Geodesic.wgs84.inverse(from: tokyo, to: osaka)
        let direct = Geodesic.wgs84.direct(from: tokyo, azimuth: inverse.initialAzimuth, distance: inverse.distance)
        #expect(abs(direct.coordinate.latitude - osaka.latitude) < 1e-10)
        #expect(abs(direct.coordinate.longitude - osaka.longitude) < 1e-10)
        #expect(abs(direct.finalAzimuth - inverse.finalAzimuth) < 1e-9)
    }

    @Test func aQuarterMeridianIsKnown() {
        // WGS84 quarter meridian, GeographicLib: 10 001 965.729 312 724 m.
        let result = Geodesic.wgs84.inverse(from: Coordinate(latitude: 0, longitude: 0), to: Coordinate(latitude: 90, longitude: 0))
        #expect(abs(result.distance - 10_001_965.729_312_724) < 1e-6)
    }

    @Test(arguments: [0.0, 35, 60, 80])
    func regionWithDistanceSpansThatManyMetres(latitude: Double) {
        // MKCoordinateRegionMakeWithDistance's degrees, measured back along the ellipsoid.
        let center = Coordinate(latitude: latitude, longitude: 10)
        let region = Region(center: center, latitudinalMeters: 2000, longitudinalMeters: 3000)
        let northSouth = Geodesic.wgs84.inverse(
            from: Coordinate(latitude: region.south, longitude: 10), to: Coordinate(latitude: region.north, longitude: 10)
        )
        let eastWest = Geodesic.wgs84.inverse(
            from: Coordinate(latitude: latitude, longitude: region.west), to: Coordinate(latitude: latitude, longitude: region.east)
        )
        #expect(abs(northSouth.distance - 2000) < 2000 * 1e-6)
        // A geodesic cuts the parallel's arc a little short at high latitudes.
        #expect(abs(eastWest.distance - 3000) < 3000 * 1e-5)
    }
}
