import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianAPI
import NIOCore
import Testing
import TestSupport

@testable import MeridianServer

/// The conversion fast route must answer what the generated handler answers.
@Suite(.watchdog) struct FastPathTests {
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

    /// Search and nearest: the fast route and the generated handler answer the same bytes, for
    /// annotations with every optional field, escapes and nested properties, and for pages with a cursor.
    @Test func searchAndNearestFastPathsAnswerWhatTheGeneratedHandlersAnswer() async throws {
        try await TestApp.withClient { client in
            for i in 0..<40 {
                let optional = i % 2 == 0
                    ? #","externalId":"e\#(i)","title":"Caf\u00e9 \"\#(i)\"\n","subtitle":"s","clusteringIdentifier":"g","kind":"shop""#
                    : ""
                _ = try await client.createAnnotation(
                    #"{"coordinate":{"latitude":\#(48.8 + Double(i) * 0.003),"longitude":\#(2.3 + Double(i % 7) * 0.01)},"displayPriority":\#(i * 20)\#(optional),"properties":{"rating":\#(Double(i) / 8),"tags":["a",null,true],"n":{"deep":1e21}}}"#)
            }
            let polygon = #"{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[2.29,48.79],[2.36,48.79],[2.36,48.95],[2.29,48.95],[2.29,48.79]]]}]}"#
            let page = try await client.post("/v1/annotations/search", json: #"{"filter":\#(polygon),"limit":7}"#).decode(SearchContractTests.Page.self)
            let bodies: [(String, String)] = [
                ("/v1/annotations/search", #""filter":\#(polygon),"limit":7"#),
                ("/v1/annotations/search", #""filter":\#(polygon),"limit":7,"cursor":"\#(page.nextCursor ?? "")""#),
                ("/v1/annotations/search", #""filter":"rating >= 2 AND kind = 'shop'""#),
                ("/v1/annotations/nearest", #""point":{"latitude":48.85,"longitude":2.33},"limit":5"#),
                ("/v1/annotations/nearest", #""point":{"latitude":48.85,"longitude":2.33},"maxDistance":2500,"filter":"displayPriority >= 300""#),
            ]
            for (path, members) in bodies {
                // An extra top-level field makes the fast path decline; the generated decoder ignores it.
                let fast = try await client.post(path, json: "{\(members)}")
                let generated = try await client.post(path, json: #"{\#(members),"note":"via the generated decoder"}"#)
                #expect(fast.status == .ok && generated.status == .ok, "\(String(buffer: generated.body))")
                #expect(String(buffer: fast.body) == String(buffer: generated.body), "byte for byte: \(path) \(members)")
                #expect(fast.body.readableBytes > 40)
            }
        }
    }

    /// The fast routes answer each annotation's JSON from a copy kept by id and version: a changed
    /// annotation comes back changed, a moved one from where it is now, a deleted one not at all.
    @Test func keptCopiesNeverAnswerAnOlderVersion() async throws {
        try await TestApp.withClient { client in
            let a = try await client.createAnnotation(#"{"coordinate":{"latitude":10,"longitude":10},"title":"first"}"#)
            let b = try await client.createAnnotation(#"{"coordinate":{"latitude":10.001,"longitude":10},"title":"other"}"#)
            let box = #"{"filter":"S_INTERSECTS(geometry, BBOX(9, 9, 11, 11))"}"#
            let near = #"{"point":{"latitude":10,"longitude":10},"limit":5}"#
            func titles(_ path: String, _ body: String) async throws -> [String] {
                let text = String(buffer: try await client.post(path, json: body).body)
                return text.components(separatedBy: #""title":""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            }
            #expect(try await titles("/v1/annotations/search", box) == ["first", "other"])
            #expect(try await titles("/v1/annotations/nearest", near) == ["first", "other"])
            _ = try await client.send(.patch, "/v1/annotations/\(a.id)", json: #"{"title":"second"}"#)
            #expect(try await titles("/v1/annotations/search", box) == ["second", "other"])
            #expect(try await titles("/v1/annotations/nearest", near) == ["second", "other"])
            _ = try await client.send(.patch, "/v1/annotations/\(a.id)", json: #"{"coordinate":{"latitude":20,"longitude":20}}"#)
            #expect(try await titles("/v1/annotations/search", box) == ["other"])
            _ = try await client.send(.delete, "/v1/annotations/\(b.id)")
            #expect(try await titles("/v1/annotations/search", box) == [])
            #expect(try await titles("/v1/annotations/nearest", near) == ["second"])
        }
    }
}
