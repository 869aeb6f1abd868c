import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MeridianAPI
import Testing
import TestSupport

/// The conversion endpoints without a viewport; expected values come from DESIGN.md's check values
/// and the published Mercator formulas.
@Suite(.watchdog) struct ConvertContractTests {
    let world = 268_435_456.0

    @Test func coordinatesBecomeMapPoints() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/convert/coordinates-to-map-points",
                json: #"{"coordinates":[{"latitude":0,"longitude":0},{"latitude":45.52,"longitude":-122.681944},{"latitude":90,"longitude":180}]}"#,
                as: Components.Schemas.MapPointBatch.self
            )
            #expect(answer.mapPoints.count == 3)
            #expect(answer.mapPoints[0] == .init(x: 134_217_728, y: 134_217_728))
            #expect(close(answer.mapPoints[1].x, 42_739_440.276093155, 1e-6))
            #expect(close(answer.mapPoints[1].y, 96_012_095.91233155, 1e-6))
            // The pole clamps to the top edge; 180° is the east edge.
            #expect(close(answer.mapPoints[2].y, 0, 1e-6) && answer.mapPoints[2].x == world)
        }
    }

    @Test func mapPointsBecomeCoordinates() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/convert/map-points-to-coordinates",
                json: #"{"mapPoints":[{"x":42739440.276093155,"y":96012095.91233155},{"x":-67108864,"y":134217728}]}"#,
                as: Components.Schemas.CoordinateBatch.self
            )
            #expect(close(answer.coordinates[0].latitude, 45.52, 1e-9))
            #expect(close(answer.coordinates[0].longitude, -122.681944, 1e-9))
            // A quarter world west of the world wraps to 90°E.
            #expect(close(answer.coordinates[1].longitude, 90, 1e-12))
        }
    }

    @Test func regionsAndMapRectsConvertBothWays() async throws {
        try await TestApp.withClient { client in
            let rects = try await client.post(
                "/v1/convert/regions-to-map-rects",
                json: #"{"regions":[{"center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":170.1022575596132,"longitudeDelta":360}}]}"#,
                as: Components.Schemas.MapRectBatch.self
            )
            let rect = try #require(rects.mapRects.first)
            #expect(close(rect.origin.x, 0, 1e-6) && close(rect.origin.y, 0, 1e-3))
            #expect(close(rect.size.width, world, 1e-6) && close(rect.size.height, world, 2e-3))

            let regions = try await client.post(
                "/v1/convert/map-rects-to-regions",
                json: #"{"mapRects":[{"origin":{"x":0,"y":0},"size":{"width":268435456,"height":268435456}}]}"#,
                as: Components.Schemas.RegionBatch.self
            )
            let region = try #require(regions.regions.first)
            #expect(close(region.center.latitude, 0, 1e-12) && close(region.center.longitude, 0, 1e-12))
            #expect(close(region.span.latitudeDelta, 170.1022575596132, 1e-9))
            #expect(region.span.longitudeDelta == 360)
        }
    }

    @Test func metersPerMapPointFollowsWGS84() async throws {
        try await TestApp.withClient { client in
            let scale = try await client.get("/v1/meters-per-map-point?latitude=45", as: Components.Schemas.MapScale.self)
            // geographiclib: a 1e-6° step along the 45° parallel, per map point.
            #expect(close(scale.metersPerMapPoint, 0.10574184594240828, 1e-14))
            #expect(close(scale.mapPointsPerMeter * scale.metersPerMapPoint, 1, 1e-15))
            let problem = try await client.execute(uri: "/v1/meters-per-map-point?latitude=95", method: .get).problem(.unprocessableContent)
            #expect(problem.errors?.first?.parameter == "latitude")
            _ = try await client.execute(uri: "/v1/meters-per-map-point", method: .get).problem(.badRequest)
            _ = try await client.execute(uri: "/v1/meters-per-map-point?latitude=north", method: .get).problem(.badRequest)
        }
    }

    @Test func regionWithDistanceUsesTheEllipsoidsRadii() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/regions/with-distance",
                json: #"{"center":{"latitude":0,"longitude":0},"latitudinalMeters":1000,"longitudinalMeters":2000}"#,
                as: Components.Schemas.RegionAnswer.self
            )
            // M(0) = a(1 − e²) = 6 335 439.327 m; N(0) = a = 6 378 137 m.
            #expect(close(answer.region.span.latitudeDelta, 1000 / 6_335_439.327_083_168 * 180 / .pi, 1e-12))
            #expect(close(answer.region.span.longitudeDelta, 2000 / 6_378_137 * 180 / .pi, 1e-12))
        }
    }

    @Test func fittingARegionWidensItToTheView() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/regions/fit",
                json: #"{"region":{"center":{"latitude":10,"longitude":20},"span":{"latitudeDelta":1,"longitudeDelta":1}},"size":{"width":300,"height":100}}"#,
                as: Components.Schemas.RegionAnswer.self
            )
            #expect(close(answer.region.span.latitudeDelta, 1, 1e-9))
            #expect(answer.region.span.longitudeDelta > 3 && answer.region.span.longitudeDelta < 3.1)
            #expect(close(answer.region.center.longitude, 20, 1e-9))
        }
    }
}
