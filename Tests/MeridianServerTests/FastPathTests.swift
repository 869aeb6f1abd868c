import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianAPI
import NIOCore
import Testing

@testable import MeridianServer

/// The conversion fast route must answer what the generated handler answers.
@Suite struct FastPathTests {
    @Test func fastAndGeneratedPathsAnswerTheSame() async throws {
        var generator = SystemRandomNumberGenerator()
        let coordinates = (0..<500).map { _ in
            #"{"latitude":\#(Double.random(in: -90...90, using: &generator)),"longitude":\#(Double.random(in: -180...180, using: &generator))}"#
        }.joined(separator: ",")
        let points = (0..<500).map { _ in
            #"{"x":\#(Double.random(in: -1e8...4e8, using: &generator)),"y":\#(Double.random(in: -1e3...2.7e8, using: &generator))}"#
        }.joined(separator: ",")
        try await TestApp.withClient { client in
            for (path, batch) in [("/v1/convert/coordinates-to-map-points", #""coordinates":[\#(coordinates)]"#),
                                  ("/v1/convert/map-points-to-coordinates", #""mapPoints":[\#(points)]"#)] {
                // An extra top-level field makes the fast path decline; the generated decoder ignores it.
                let fast = try await client.post(path, json: "{\(batch)}")
                let generated = try await client.post(path, json: #"{\#(batch),"note":"via the generated decoder"}"#)
                #expect(fast.status == .ok && generated.status == .ok)
                #expect(String(buffer: fast.body) == String(buffer: generated.body), "byte for byte: \(path)")
            }
        }
    }
}
