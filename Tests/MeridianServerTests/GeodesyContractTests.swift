import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MeridianAPI
import Testing
import TestSupport

/// Geodesics and CRS transforms; references from GeographicLib and pyproj.
@Suite(.watchdog) struct GeodesyContractTests {
    let tokyo = #"{"latitude":35.681236,"longitude":139.767125}"#
    let osaka = #"{"latitude":34.702485,"longitude":135.495951}"#

    @Test func inverseGivesTokyoToOsaka() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/geodesic/inverse", json: #"{"pairs":[{"from":\#(tokyo),"to":\#(osaka)}]}"#,
                as: Components.Schemas.GeodesicInverseAnswer.self
            )
            #expect(close(answer.results[0].distance, 403_826.686, 1e-3))
            #expect(close(answer.results[0].initialAzimuth, -104.3586140611891, 1e-9))
        }
    }

    @Test func directWalksTokyoToOsaka() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/geodesic/direct",
                json: #"{"items":[{"from":\#(tokyo),"azimuth":-104.3586140611891,"distance":403826.6860572838}]}"#,
                as: Components.Schemas.GeodesicDirectAnswer.self
            )
            #expect(close(answer.results[0].coordinate.latitude, 34.702485, 1e-9))
            #expect(close(answer.results[0].coordinate.longitude, 135.495951, 1e-9))
            #expect(close(answer.results[0].finalAzimuth, -106.82101594911278, 1e-9))
        }
    }

    @Test func transformKeepsEastingFirst() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.post(
                "/v1/crs/transform",
                json: #"{"source":"EPSG:4326","target":"EPSG:3857","positions":[[139.767125,35.681236]]}"#,
                as: Components.Schemas.TransformAnswer.self
            )
            let tokyo = try #require(answer.positions[0])
            #expect(close(tokyo[0], 15_558_805.184639815, 1e-6))
            #expect(close(tokyo[1], 4_256_848.120219802, 1e-6))
            let plane = try await client.post(
                "/v1/crs/transform",
                json: #"{"source":"EPSG:4326","target":"EPSG:6677","positions":[[139.767125,35.681236]]}"#,
                as: Components.Schemas.TransformAnswer.self
            )
            let inPlane = try #require(plane.positions[0])
            #expect(close(inPlane[0], -5_992.919570392903, 1e-3))
            #expect(close(inPlane[1], -35_363.23774493004, 1e-3))
        }
    }

    /// A position the target CRS has no image for is null in its place; the others are answered.
    @Test func aPositionOutsideTheDomainIsNullInItsPlace() async throws {
        try await TestApp.withClient { client in
            let response = try await client.send(.post, "/v1/crs/transform", json: #"{"source":"EPSG:4326","target":"EPSG:32654","positions":[[141,0],[-129,0]]}"#)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).hasSuffix(",null]}"))
        }
    }
}
