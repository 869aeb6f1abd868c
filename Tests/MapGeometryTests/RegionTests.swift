import Foundation
import MapGeometry
import Testing

@Suite struct RegionTests {
    let world = Mercator.worldSize

    @Test func theWholeWorldRectIsTheWholeMercatorRegion() {
        let region = Region(MapRect(minX: 0, minY: 0, maxX: world, maxY: world))
        #expect(abs(region.center.latitude) < 1e-12)
        #expect(abs(region.center.longitude) < 1e-12)
        #expect(abs(region.span.latitudeDelta - 2 * 85.0511287798066) < 1e-9)
        #expect(region.span.longitudeDelta == 360)
    }

    @Test func aRegionRectSpansItsCorners() {
        let region = Region(center: Coordinate(latitude: 45.52, longitude: -122.681944), span: Span(latitudeDelta: 0.2, longitudeDelta: 0.4))
        let rect = MapRect(region)
        let northWest = Mercator.mapPoint(for: Coordinate(latitude: 45.62, longitude: -122.881944))
        let southEast = Mercator.mapPoint(for: Coordinate(latitude: 45.42, longitude: -122.481944))
        #expect(abs(rect.minX - northWest.x) < 1e-6)
        #expect(abs(rect.minY - northWest.y) < 1e-6)
        #expect(abs(rect.maxX - southEast.x) < 1e-6)
        #expect(abs(rect.maxY - southEast.y) < 1e-6)
    }

    @Test func aRegionAcrossTheAntimeridianGivesAWrappedRectWithARemainder() throws {
        let region = Region(center: Coordinate(latitude: -17.7, longitude: 179), span: Span(latitudeDelta: 2, longitudeDelta: 4))
        let rect = MapRect(region)
        #expect(rect.minX >= 0 && rect.minX < world)
        #expect(abs(rect.minX - 177.0 / 360 * world - world / 2) < 1e-6)
        #expect(rect.spans180thMeridian)
        let remainder = try #require(rect.remainder)
        #expect(remainder.minX == 0)
        #expect(abs(remainder.size.width - 1.0 / 360 * world) < 1e-6)
        // The region of the rect comes back across the meridian, centered at 179°.
        #expect(abs(Region(rect).center.longitude - 179) < 1e-9)
    }

    @Test func aRectStartingWestOfTheWorldWrapsIntoIt() {
        let rect = MapRect(minX: -1000, minY: 10, maxX: 500, maxY: 20)
        #expect(rect.spans180thMeridian)
        #expect(rect.wrapped.minX == world - 1000)
        #expect(rect.remainder == MapRect(minX: 0, minY: 10, maxX: 500, maxY: 20))
        #expect(MapRect(minX: 10, minY: 10, maxX: 20, maxY: 20).remainder == nil)
    }

    @Test func fittingGrowsTheShorterSideToTheViewsAspect() {
        let region = Region(center: Coordinate(latitude: 10, longitude: 20), span: Span(latitudeDelta: 1, longitudeDelta: 1))
        let original = MapRect(region)
        let fitted = original.fitting(aspectOf: ScreenSize(width: 300, height: 100))
        #expect(abs(fitted.size.width / fitted.size.height - 3) < 1e-9)
        #expect(abs(fitted.size.height - original.size.height) < 1e-6)
        #expect(abs(fitted.midX - original.midX) < 1e-6)
        #expect(abs(fitted.midY - original.midY) < 1e-6)
        let tall = original.fitting(aspectOf: ScreenSize(width: 100, height: 400))
        #expect(abs(tall.size.height / tall.size.width - 4) < 1e-9)
        #expect(abs(tall.size.width - original.size.width) < 1e-6)
        // regionThatFits: is the region of the fitted rect: same longitude, wider span.
        let fittedRegion = region.fitting(ScreenSize(width: 300, height: 100))
        #expect(fittedRegion == Region(fitted))
        #expect(abs(fittedRegion.center.longitude - 20) < 1e-9)
        #expect(abs(fittedRegion.span.longitudeDelta - fitted.size.width * 360 / world) < 1e-12)
    }

    @Test func regionWithDistanceUsesTheWGS84Radii() {
        // At the equator M = a(1 − e²) = 6 335 439.327 m and N cos φ = a = 6 378 137 m.
        let region = Region(center: Coordinate(latitude: 0, longitude: 0), latitudinalMeters: 1000, longitudinalMeters: 2000)
        #expect(abs(region.span.latitudeDelta - 1000 / 6_335_439.327_083_168 * 180 / .pi) < 1e-12)
        #expect(abs(region.span.longitudeDelta - 2000 / 6_378_137 * 180 / .pi) < 1e-12)
        let pole = Region(center: Coordinate(latitude: 90, longitude: 0), latitudinalMeters: 1000, longitudinalMeters: 1000)
        #expect(pole.span.longitudeDelta == 360)
    }

    @Test func invalidInputNamesTheField() {
        #expect(throws: FieldError(path: ["latitude"], message: "must be between -90 and 90, got 91")) {
            try Coordinate(validatingLatitude: 91, longitude: 0)
        }
        #expect(throws: FieldError(path: ["longitude"], message: "must be a finite number")) {
            try Coordinate(validatingLatitude: 0, longitude: .nan)
        }
        #expect(throws: FieldError.self) { try Span(validatingLatitudeDelta: -1, longitudeDelta: 0) }
        #expect(throws: Never.self) { try Coordinate(validatingLatitude: -90, longitude: 180) }
        #expect(throws: Never.self) { try Coordinate(validatingLatitude: 90, longitude: -180) }
    }
}
