import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MeridianAPI
import Testing
import TestSupport

/// Screen conversions of a viewport; a 256-point view at zoom 0 shows the world 1:2^20.
@Suite(.watchdog) struct ViewportContractTests {
    let worldView = #""viewport":{"size":{"width":256,"height":256},"center":{"latitude":0,"longitude":0},"zoomLevel":0}"#

    @Test func coordinatesAndScreenPointsConvertBothWays() async throws {
        try await TestApp.withClient { client in
            let points = try await client.post(
                "/v1/convert/coordinates-to-screen-points",
                json: #"{\#(worldView),"coordinates":[{"latitude":0,"longitude":0},{"latitude":0,"longitude":90}]}"#,
                as: Components.Schemas.ScreenPointBatch.self
            )
            #expect(points.points == [.init(x: 128, y: 128), .init(x: 192, y: 128)])
            let coordinates = try await client.post(
                "/v1/convert/screen-points-to-coordinates",
                json: #"{\#(worldView),"points":[{"x":192,"y":128}]}"#,
                as: Components.Schemas.CoordinateBatch.self
            )
            #expect(close(coordinates.coordinates[0].longitude, 90, 1e-12))
        }
    }

    @Test func mapPointsAndScreenPointsConvertBothWaysWithAHeading() async throws {
        try await TestApp.withClient { client in
            let view = #""viewport":{"size":{"width":200,"height":100},"heading":90,"center":{"latitude":0,"longitude":0},"zoomLevel":20}"#
            let points = try await client.post(
                "/v1/convert/map-points-to-screen-points",
                json: #"{\#(view),"mapPoints":[{"x":134217738,"y":134217728}]}"#,
                as: Components.Schemas.ScreenPointBatch.self
            )
            // Facing east at 1 point per map point: 10 map points east is 10 points up.
            #expect(close(points.points[0].x, 100, 1e-9) && close(points.points[0].y, 40, 1e-9))
            let mapPoints = try await client.post(
                "/v1/convert/screen-points-to-map-points",
                json: #"{\#(view),"points":[{"x":100,"y":40}]}"#,
                as: Components.Schemas.MapPointBatch.self
            )
            #expect(close(mapPoints.mapPoints[0].x, 134_217_738, 1e-6) && close(mapPoints.mapPoints[0].y, 134_217_728, 1e-6))
        }
    }

    @Test func rectsConvertBothWays() async throws {
        try await TestApp.withClient { client in
            let screen = try await client.post(
                "/v1/convert/map-rects-to-screen-rects",
                json: #"{\#(worldView),"mapRects":[{"origin":{"x":0,"y":0},"size":{"width":134217728,"height":134217728}}]}"#,
                as: Components.Schemas.ScreenRectBatch.self
            )
            #expect(screen.rects == [.init(origin: .init(x: 0, y: 0), size: .init(width: 128, height: 128))])
            let map = try await client.post(
                "/v1/convert/screen-rects-to-map-rects",
                json: #"{\#(worldView),"rects":[{"origin":{"x":128,"y":128},"size":{"width":128,"height":128}}]}"#,
                as: Components.Schemas.MapRectBatch.self
            )
            #expect(map.mapRects == [.init(origin: .init(x: 134_217_728, y: 134_217_728), size: .init(width: 134_217_728, height: 134_217_728))])
            let regions = try await client.post(
                "/v1/convert/screen-rects-to-regions",
                json: #"{\#(worldView),"rects":[{"origin":{"x":0,"y":0},"size":{"width":256,"height":128}}]}"#,
                as: Components.Schemas.RegionBatch.self
            )
            #expect(close(regions.regions[0].span.latitudeDelta, 85.0511287798066, 1e-9))
            #expect(regions.regions[0].span.longitudeDelta == 360)
            let back = try await client.post(
                "/v1/convert/regions-to-screen-rects",
                json: #"{\#(worldView),"regions":[{"center":{"latitude":0,"longitude":45},"span":{"latitudeDelta":0,"longitudeDelta":90}}]}"#,
                as: Components.Schemas.ScreenRectBatch.self
            )
            #expect(close(back.rects[0].origin.x, 128, 1e-9) && close(back.rects[0].size.width, 64, 1e-9))
            #expect(close(back.rects[0].origin.y, 128, 1e-9) && back.rects[0].size.height == 0)
        }
    }

    @Test func describingAViewportAcrossTheAntimeridian() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/viewport",
                json: #"{"viewport":{"size":{"width":1024,"height":768},"center":{"latitude":-17.7,"longitude":179.9},"zoomLevel":6}}"#,
                as: Components.Schemas.ViewportDescription.self
            )
            #expect(answer.zoomLevel == 6)
            #expect(answer.zoomScale == 1.0 / 16384)
            #expect(answer.spans180thMeridian)
            let remainder = try #require(answer.remainder)
            #expect(remainder.origin.x == 0)
            #expect(close(answer.visibleMapRect.size.width, 1024 * 16384, 1e-6))
            #expect(close(answer.center.longitude, 179.9, 1e-9))
            // metres per point = metres per map point at the center / zoom scale.
            #expect(close(answer.metersPerPoint, 0.14221 * 16384, 30))
        }
    }

    @Test func aVisibleMapRectIsShownWholeAndCentredAsSetVisibleMapRectDoes() async throws {
        try await TestApp.withClient { client in
            // A flat rect in a 2:1 view: the width decides, the height grows around the rect's center.
            let flat = try await client.post(
                "/v1/viewport",
                json: #"{"viewport":{"size":{"width":400,"height":200},"visibleMapRect":{"origin":{"x":1000,"y":2000},"size":{"width":800,"height":1}}}}"#,
                as: Components.Schemas.ViewportDescription.self
            )
            #expect(flat.visibleMapRect == .init(origin: .init(x: 1000, y: 1800.5), size: .init(width: 800, height: 400)))
            #expect(flat.zoomLevel == 19)
            #expect(!flat.spans180thMeridian && flat.remainder == nil)
            // The world in an 800×400 view: the height decides (zoom log2(400/256) = 0.644, not 1.644).
            let world = try await client.post(
                "/v1/viewport",
                json: #"{"viewport":{"size":{"width":800,"height":400},"visibleMapRect":{"origin":{"x":0,"y":0},"size":{"width":268435456,"height":268435456}}}}"#,
                as: Components.Schemas.ViewportDescription.self
            )
            #expect(abs(world.zoomLevel - 0.643_856_189_774_724_7) < 1e-12)
            #expect(world.center == .init(latitude: 0, longitude: 0))
            // The world in a 400×800 view: a quarter of the view above its center is latitude +66.51.
            let tall = try await client.post(
                "/v1/convert/screen-points-to-coordinates",
                json: #"{"viewport":{"size":{"width":400,"height":800},"visibleMapRect":{"origin":{"x":0,"y":0},"size":{"width":268435456,"height":268435456}}},"points":[{"x":200,"y":300}]}"#,
                as: Components.Schemas.CoordinateBatch.self
            )
            #expect(abs(tall.coordinates[0].latitude - 66.513_260_443_111_85) < 1e-9)
        }
    }

    @Test func integerZoomsStayIntegersInThinAnswersAndClusterGrids() async throws {
        try await TestApp.withClient { client in
            // 728×728 at zoom 9 came back as 8.999999999999972 and clustered on zoom 8's grid.
            for (latitude, longitude, width, height, zoom) in [(48.8566, 2.3522, 728.0, 728.0, 9), (69.2998, -90.5665, 877, 397, 8)] {
                let answer = try await client.post(
                    "/v1/annotations/thin",
                    json: #"{"viewport":{"size":{"width":\#(width),"height":\#(height)},"center":{"latitude":\#(latitude),"longitude":\#(longitude)},"zoomLevel":\#(zoom)}}"#,
                    as: Components.Schemas.ThinAnswer.self
                )
                #expect(answer.zoomLevel == Double(zoom))
                #expect(answer.gridZoom == zoom)
            }
        }
    }
}
