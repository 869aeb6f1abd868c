import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianAPI
import Testing
import TestSupport

@Suite(.watchdog) struct TileContractTests {
    @Test func aCoordinatesTileHasMercantilesBoundsAndQuadkey() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/convert/coordinates-to-tiles", json: #"{"zoom":10,"coordinates":[{"latitude":53.2,"longitude":-9},{"latitude":90,"longitude":180}]}"#,
                as: Components.Schemas.TileBatch.self
            )
            #expect(answer.tiles.map { [$0.z, $0.x, $0.y] } == [[10, 486, 332], [10, 1023, 0]])
            #expect(answer.tiles[0].quadkey == "0313102310" && answer.tiles[0].bounds.west == -9.140625)
            let regions = try await client.post("/v1/convert/tiles-to-regions", json: #"{"tiles":[{"z":0,"x":0,"y":0}]}"#, as: Components.Schemas.TileRegions.self)
            #expect(regions.bounds[0].west == -180 && regions.bounds[0].east == 180 && regions.regions[0].span.longitudeDelta == 360)
        }
    }

    @Test func aCoverAcrossTheAntimeridianPagesWithACursor() async throws {
        try await TestApp.withClient { client in
            let first = try await client.get("/v1/tiles/cover?bbox=170,-20,-170,-10&zoom=3&limit=1", as: Components.Schemas.TilePage.self)
            #expect(first.total == 2 && first.tiles.map(\.x) == [7] && first.nextCursor == "1")
            let second = try await client.get("/v1/tiles/cover?bbox=170,-20,-170,-10&zoom=3&limit=1&cursor=1", as: Components.Schemas.TilePage.self)
            #expect(second.tiles.map(\.x) == [0] && second.nextCursor == nil)
        }
    }

    @Test(arguments: [
        (#"{"tiles":[{"z":2,"x":4,"y":0}]}"#, "/tiles/0/x"), (#"{"tiles":[{"z":1.5,"x":0,"y":0}]}"#, "/tiles/0/z"),
        (#"{"tiles":[{"z":29,"x":0,"y":0}]}"#, "/tiles/0/z"),
    ])
    func badTilesAre422AtTheField(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.post("/v1/convert/tiles-to-regions", json: body).problem(.unprocessableContent)
            #expect(problem.pointers == [pointer])
        }
    }

    @Test func aFractionalZoomIs422() async throws {
        try await TestApp.withClient { client in
            let body = try await client.post("/v1/convert/coordinates-to-tiles", json: #"{"zoom":2.5,"coordinates":[]}"#).problem(.unprocessableContent)
            #expect(body.pointers == ["/zoom"])
            let query = try await client.send(.get, "/v1/tiles/cover?bbox=0,0,1,1&zoom=2.5").problem(.unprocessableContent)
            #expect(query.errors?.first?.parameter == "zoom")
        }
    }
}
