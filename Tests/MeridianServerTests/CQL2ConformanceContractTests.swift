import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport
import WireJSON

/// The OGC's own CQL2 conformance material (Tests/Fixtures/cql2, see its README): the Natural
/// Earth populated places imported through `POST /v1/annotations/import`, then every case of the
/// abstract test suite's tables and methods, in CQL2-Text and CQL2-JSON, through
/// `POST /v1/annotations/search`, paged to the end: the count is the suite's.
@Suite(.watchdog) struct CQL2ConformanceContractTests {
    struct Case {
        var id: String
        var text: String
        var json: JSONValue
        var expected: Int
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/cql2")

    static func cases() throws -> [Case] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("cases.json"))
        let root = try #require(data.withUnsafeBytes { JSONValueParser.parse($0) })
        guard case .array(let items)? = root.objectValue?["cases"] else { throw CocoaError(.fileReadCorruptFile) }
        return try items.map { item in
            let members = try #require(item.objectValue)
            guard case .string(let id)? = members["id"], case .string(let text)? = members["text"], let json = members["json"],
                  case .number(let expected)? = members["expected"] else { throw CocoaError(.fileReadCorruptFile) }
            return Case(id: id, text: text, json: json, expected: Int(expected.double))
        }
    }

    /// How many annotations `filter` (a CQL2-JSON value, or text as a JSON string) matches, paged to the end.
    static func count(_ filter: JSONValue, client: some TestClientProtocol) async throws -> Counted {
        var total = 0
        var cursor: String?
        repeat {
            var body: [String: JSONValue] = ["filter": filter, "limit": .number(1000)]
            if let cursor { body["cursor"] = .string(cursor) }
            let response = try await client.send(.post, "/v1/annotations/search", json: JSONValue.object(body).canonicalText)
            guard response.status == .ok else { return .refused("\(response.status.code) \(String(buffer: response.body))") }
            let page = try response.decode(Page.self)
            total += page.annotations.count
            cursor = page.nextCursor
        } while cursor != nil
        return .count(total)
    }

    @Test func everyOGCCaseCountsAsTheSuiteSaysInTextAndJSON() async throws {
        let cases = try Self.cases()
        #expect(cases.count == 791)
        try await TestApp.withClient { client in
            let layer = try String(contentsOf: Self.fixtures.appendingPathComponent("ne_110m_populated_places_simple.geojson"), encoding: .utf8)
            let imported = try await client.send(.post, "/v1/annotations/import", json: layer, headers: [.contentType: "application/geo+json"])
            #expect(imported.status == .ok, "\(String(buffer: imported.body).prefix(500))")
            #expect(try await Self.count(.bool(true), client: client) == .count(243))
            var failures: [String] = []
            for item in cases {
                for (encoding, filter) in [("text", JSONValue.string(item.text)), ("json", item.json)] {
                    let counted = try await Self.count(filter, client: client)
                    if counted != .count(item.expected) { failures.append("\(item.id) [\(encoding)] \(item.text): expected \(item.expected), got \(counted)") }
                }
            }
            #expect(failures.isEmpty, "\(failures.count) of \(cases.count * 2) runs differ:\n\(failures.prefix(60).joined(separator: "\n"))")
        }
    }

    /// A count, or the answer that refused the filter.
    enum Counted: Equatable { case count(Int), refused(String) }

    struct Page: Decodable {
        struct Item: Decodable { var id: String }
        var annotations: [Item]
        var nextCursor: String?
    }
}

