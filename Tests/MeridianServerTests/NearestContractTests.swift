import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `POST /v1/annotations/nearest`: geodesic order (checked against PROJ's inverse over a scan),
/// across the antimeridian and at the poles, with `maxDistance` and a filter.
@Suite(.watchdog) struct NearestContractTests {
    struct Results: Decodable {
        struct Result: Decodable { var annotation: Item; var distance: Double }
        struct Item: Decodable { var id: String; var externalId: String? }
        var results: [Result]
    }

    @Test func nearestIsTheGeodesicOrderOfAScanAcrossTheAntimeridianAndThePoles() async throws {
        try await TestApp.withClient { client in
            var generator = SystemRandomNumberGenerator()
            var points: [String: Coordinate] = [:]
            for index in 0..<300 {
                // Clustered near 180° and near the north pole, and some anywhere.
                let latitude = index < 100 ? Double.random(in: -5...5, using: &generator) : index < 200 ? Double.random(in: 85...90, using: &generator) : Double.random(in: -90...90, using: &generator)
                let longitude = index < 100 ? (Bool.random(using: &generator) ? 1 : -1) * Double.random(in: 175...180, using: &generator) : Double.random(in: -180...180, using: &generator)
                let id = "p\(index)"
                points[id] = Coordinate(latitude: latitude, longitude: longitude)
                _ = try await client.createAnnotation(#"{"externalId":"\#(id)","coordinate":{"latitude":\#(latitude),"longitude":\#(longitude)},"kind":"\#(index % 2 == 0 ? "even" : "odd")"}"#)
            }
            for origin in [Coordinate(latitude: 0, longitude: 179.9), Coordinate(latitude: 0, longitude: -179.95), Coordinate(latitude: 89.9, longitude: 10), Coordinate(latitude: -30, longitude: 20)] {
                let body = #"{"point":{"latitude":\#(origin.latitude),"longitude":\#(origin.longitude)},"limit":12}"#
                let answer = try await client.send(.post, "/v1/annotations/nearest", json: body).decode(Results.self)
                let expected = points.map { (id: $0.key, distance: Geodesic.wgs84.inverse(from: origin, to: $0.value).distance) }
                    .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }.prefix(12)
                #expect(answer.results.compactMap(\.annotation.externalId).count == 12)
                for (got, want) in zip(answer.results, expected) {
                    #expect(abs(got.distance - want.distance) < 1e-6, "\(origin): \(got.annotation.externalId ?? "") \(got.distance) vs \(want.id) \(want.distance)")
                }
                #expect(answer.results.map(\.distance) == answer.results.map(\.distance).sorted())
            }
            // maxDistance and a filter.
            let near = try await client.send(.post, "/v1/annotations/nearest", json: #"{"point":{"latitude":0,"longitude":180},"limit":1000,"maxDistance":300000,"filter":"kind = 'even'"}"#).decode(Results.self)
            let within = points.filter { Int($0.key.dropFirst())! % 2 == 0 && Geodesic.wgs84.inverse(from: Coordinate(latitude: 0, longitude: 180), to: $0.value).distance <= 300_000 }
            #expect(Set(near.results.compactMap(\.annotation.externalId)) == Set(within.keys))
        }
    }

    @Test(arguments: [
        (#"{"point":{"latitude":91,"longitude":0}}"#, "/point/latitude", 422),
        (#"{"point":{"latitude":0,"longitude":0},"limit":0}"#, "/limit", 422),
        (#"{"point":{"latitude":0,"longitude":0},"maxDistance":-1}"#, "/maxDistance", 422),
        (#"{"point":{"latitude":0,"longitude":0},"filter":{"op":"nope","args":[]}}"#, "/filter/op", 422),
        (#"{"limit":3}"#, "/point", 400),
    ])
    func badQueriesPointAtTheField(body: String, pointer: String, status: Int) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/annotations/nearest", json: body).problem(HTTPResponse.Status(code: status))
            if !pointer.isEmpty { #expect(problem.pointers == [pointer], "\(problem)") }
        }
    }

    @Test func anEmptyStoreAnswersNoResults() async throws {
        try await TestApp.withClient { client in
            let answer = try await client.send(.post, "/v1/annotations/nearest", json: #"{"point":{"latitude":10,"longitude":10}}"#).decode(Results.self)
            #expect(answer.results.isEmpty)
        }
    }
}
