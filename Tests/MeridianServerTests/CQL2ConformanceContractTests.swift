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
/// `POST /v1/annotations/search` and through `GET /ogc/collections/annotations/items?filter=`
/// (Part 3), paged to the end: the count is the suite's.
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

    /// Imports the layer, then every case in both encodings through `count`; the runs whose count is not the suite's.
    static func runs(_ client: some TestClientProtocol, count: (Case, _ text: Bool) async throws -> Counted) async throws -> [String] {
        let cases = try Self.cases()
        #expect(cases.count == 791)
        let layer = try String(contentsOf: Self.fixtures.appendingPathComponent("ne_110m_populated_places_simple.geojson"), encoding: .utf8)
        let imported = try await client.send(.post, "/v1/annotations/import", json: layer, headers: [.contentType: "application/geo+json"])
        #expect(imported.status == .ok, "\(String(buffer: imported.body).prefix(500))")
        var failures: [String] = []
        for item in cases {
            for text in [true, false] {
                let counted = try await count(item, text)
                if counted != .count(item.expected) {
                    failures.append("\(item.id) [\(text ? "text" : "json")] \(item.text): expected \(item.expected), got \(counted)")
                }
            }
        }
        return failures
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

    /// How many features `filter` (in `lang`) selects on /ogc, following `next` links to the end.
    static func ogcCount(_ filter: String, lang: String, client: some TestClientProtocol) async throws -> Counted {
        let encoded = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        var next: String? = "/ogc/collections/annotations/items?limit=10000&filter-lang=\(lang)&filter=\(encoded)"
        var total = 0
        while let url = next {
            let response = try await client.send(.get, TestClientProtocolPaths.pathOf(url))
            guard response.status == .ok else { return .refused("\(response.status.code) \(String(buffer: response.body))") }
            let page = try response.decode(OGCWirePage.self)
            total += page.numberReturned
            next = page.next
        }
        return .count(total)
    }

    @Test func everyOGCCaseCountsAsTheSuiteSaysThroughSearch() async throws {
        try await TestApp.withClient { client in
            let failures = try await Self.runs(client) { item, text in try await Self.count(text ? .string(item.text) : item.json, client: client) }
            #expect(try await Self.count(.bool(true), client: client) == .count(243))
            #expect(failures.isEmpty, "\(failures.count) of 1582 runs differ:\n\(failures.prefix(60).joined(separator: "\n"))")
        }
    }

    @Test func everyOGCCaseCountsAsTheSuiteSaysThroughOGCItems() async throws {
        try await TestApp.withClient { client in
            let failures = try await Self.runs(client) { item, text in
                try await Self.ogcCount(text ? item.text : item.json.canonicalText, lang: text ? "cql2-text" : "cql2-json", client: client)
            }
            #expect(failures.isEmpty, "\(failures.count) of 1582 runs differ:\n\(failures.prefix(60).joined(separator: "\n"))")
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

