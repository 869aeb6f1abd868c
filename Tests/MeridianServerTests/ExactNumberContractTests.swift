import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport
import WireJSON

/// Numbers in free properties come back with exactly the value sent (spelt once per value: `1E+2`
/// is `100`), through every way in and out, and CQL2 compares them exactly.
@Suite(.watchdog) struct ExactNumberContractTests {
    /// Free properties as sent: what a Double loses (2^53 + 1, below and above its range, thirty digits), and what it keeps.
    static let sent = #"{"marker":"exact","big":9007199254740993,"tiny":1e-400,"hundred":1E+2,"long":123456789012345678901234567890,"tenth":0.1,"negative":-1.5e+300,"huge":1e400}"#
    /// The same values as every answer writes them (keys sorted, compact).
    static let written = #"{"big":9007199254740993,"huge":1e+400,"hundred":100,"long":123456789012345678901234567890,"marker":"exact","negative":-1.5e+300,"tenth":0.1,"tiny":1e-400}"#

    /// An annotation in Paris, `offset` hundredths of a degree north (apart at zoom 15, not a stack).
    static func annotation(_ externalId: String, offset: Int = 0, properties: String = sent) -> String {
        #"{"externalId":"\#(externalId)","coordinate":{"latitude":\#(48.85 + Double(offset) / 100),"longitude":2.35},"properties":\#(properties)}"#
    }

    /// A thin request showing the annotations above (zoom 15: about 3 km across), with `extra` members.
    static func thin(_ extra: String = "") -> String {
        #"{"viewport":{"size":{"width":1024,"height":768},"center":{"latitude":48.855,"longitude":2.35},"zoomLevel":15}\#(extra)}"#
    }

    /// How many times `properties` appear as written in the answer (which must be 2xx).
    func count(_ properties: String = written, in response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let body = String(buffer: response.body)
        #expect(response.status.kind == .successful, "\(body)", sourceLocation: sourceLocation)
        return body.components(separatedBy: properties).count - 1
    }

    /// The external ids of a page of annotations, read exactly (Foundation's decoder refuses `1e400`).
    func externalIds(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        let page = try #require(Array(response.body.readableBytesView).withUnsafeBytes { JSONValueParser.parse($0) }?.objectValue)
        guard case .array(let annotations)? = page["annotations"] else { return [] }
        return annotations.compactMap { if case .string(let id)? = $0.objectValue?["externalId"] { id } else { nil } }
    }

    @Test func createPatchPutImportExportAndThinKeepEveryNumber() async throws {
        try await TestApp.withClient { client in
            let created = try await client.send(.post, "/v1/annotations", json: Self.annotation("created"))
            #expect(count(in: created) == 1)
            let id = try #require(String(buffer: created.body).firstMatch(of: /"id":"([^"]+)"/)?.1)
            #expect(count(in: try await client.send(.get, "/v1/annotations/\(id)")) == 1)

            // A merge patch adds and replaces members exactly; the others stay as they were.
            let patch = #"{"properties":{"added":-1e-400,"big":9007199254740995}}"#
            let patched = try await client.send(.patch, "/v1/annotations/\(id)", json: patch, headers: [.contentType: "application/merge-patch+json"])
            let merged = Self.written.replacingOccurrences(of: #"{"big":9007199254740993"#, with: #"{"added":-1e-400,"big":9007199254740995"#)
            #expect(count(merged, in: patched) == 1)
            #expect(count(merged, in: try await client.send(.get, "/v1/annotations/\(id)")) == 1)

            let put = try await client.send(.put, "/v1/annotations/by-external-id/put", json: #"{"coordinate":{"latitude":48.86,"longitude":2.35},"properties":\#(Self.sent)}"#)
            #expect(put.status == .created && count(in: put) == 1)

            let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.36,48.85]},"properties":{"externalId":"imported","properties":\#(Self.sent)}}"#
            let imported = try await client.send(.post, "/v1/annotations/import", json: #"{"type":"FeatureCollection","features":[\#(feature)]}"#)
            #expect(imported.status == .ok, "\(String(buffer: imported.body))")
            let importedId = try #require(String(buffer: imported.body).firstMatch(of: /"id":"([^"]+)"/)?.1)
            #expect(count(in: try await client.send(.get, "/v1/annotations/\(importedId)")) == 1)

            // Every answer that lists them: the list, export (GeoJSON), thin, search.
            #expect(count(in: try await client.send(.get, "/v1/annotations")) == 2)
            #expect(count(in: try await client.send(.get, "/v1/annotations/export")) == 2)
            #expect(count(in: try await client.send(.post, "/v1/annotations/thin", json: Self.thin())) == 2)
            #expect(count(in: try await client.send(.post, "/v1/annotations/search", json: #"{"filter":"marker = 'exact'"}"#)) == 2)

            // What export wrote imports back as the same values.
            let export = try await client.send(.get, "/v1/annotations/export")
            #expect(try await client.send(.post, "/v1/annotations/import", json: String(buffer: export.body)).status == .ok)
            #expect(count(in: try await client.send(.get, "/v1/annotations")) == 2)
        }
    }

    /// Filters and the annotations they select.
    static let filters: [(filter: String, selects: [String])] = [
        ("big = 9007199254740993", ["exact"]), ("big = 9007199254740992", ["zero"]), ("big > 9007199254740992", ["exact"]),
        ("tiny > 0", ["exact"]), ("tiny < 1e-399", ["exact", "zero"]), ("tiny = 1e-400", ["exact"]), ("tiny = 0", ["zero"]),
        ("huge > 1.7976931348623157e308", ["exact"]), ("huge = 1e400", ["exact"]), ("hundred = 100", ["exact"]),
        ("long = 123456789012345678901234567890", ["exact"]), ("long = 123456789012345678901234567891", ["zero"]),
        ("negative < -1.4e300", ["exact"]), ("tenth = 0.1", ["exact"]),
    ]

    /// Filters of each kind and path: CQL2-Text in a query, CQL2-JSON in a search body (the fast
    /// route) and in a thin body (the generated handler). One server for all (each is a database on PostgreSQL).
    /// A number no Double holds, where a string belongs, is refused at the field (the stand-in a
    /// Double-reading decoder sees is never a string, so it cannot be stored as one).
    @Test func anOutOfRangeNumberInATypedFieldIsRefusedAtTheField() async throws {
        try await TestApp.withClient { client in
            for (field, body) in [("/title", #"{"coordinate":{"latitude":1,"longitude":2},"title":1e400}"#),
                                  ("/kind", #"{"coordinate":{"latitude":1,"longitude":2},"kind":-1e-400}"#)] {
                let problem = try await client.send(.post, "/v1/annotations", json: body).problem(.badRequest)
                #expect(problem.pointers == [field], "\(body)")
                #expect(problem.detail?.contains("meridian-exact") != true)
            }
            #expect(try await client.get("/v1/annotations", as: Page.self).annotations.isEmpty)
        }
    }

    @Test func filtersCompareExactly() async throws {
        try await TestApp.withClient { client in
            _ = try await client.send(.post, "/v1/annotations", json: Self.annotation("exact"))
            let zero = #"{"big":9007199254740992,"tiny":0,"huge":1.7976931348623157e308,"hundred":99,"long":123456789012345678901234567891,"negative":0,"tenth":0.10000000000000001}"#
            _ = try await client.send(.post, "/v1/annotations", json: Self.annotation("zero", offset: 1, properties: zero))
            for (filter, expected) in Self.filters {
                let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                #expect(try externalIds(try await client.send(.get, "/v1/annotations?filter=\(query)")).sorted() == expected, "\(filter)")

                let parts = filter.split(separator: " ", maxSplits: 2).map(String.init)
                let json = #"{"op":"\#(parts[1])","args":[{"property":"\#(parts[0])"},\#(parts[2])]}"#
                #expect(try externalIds(try await client.send(.post, "/v1/annotations/search", json: #"{"filter":\#(json)}"#)).sorted() == expected, "\(json)")

                let answer = String(buffer: try await client.send(.post, "/v1/annotations/thin", json: Self.thin(#","filter":\#(json)"#)).body)
                #expect(["exact", "zero"].filter { answer.contains(#""externalId":"\#($0)""#) } == expected, "\(json): \(answer)")
            }
        }
    }

    @Test func subscriptionPropertiesReachEventsExactly() async throws {
        try await TestApp.withClient { client in
            let subscription = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"significantChange","maxLocationAge":null,"properties":\#(Self.sent)}"#)
            #expect(subscription.status == .created && count(in: subscription) == 1)
            let id = try #require(String(buffer: subscription.body).firstMatch(of: /"id":"([^"]+)"/)?.1)
            let patched = try await client.send(.patch, "/v1/subscriptions/\(id)", json: #"{"properties":{"added":1e-400}}"#,
                                                headers: [.contentType: "application/merge-patch+json"])
            let merged = Self.written.replacingOccurrences(of: #"{"big""#, with: #"{"added":1e-400,"big""#)
            #expect(count(merged, in: patched) == 1)
            let ingest = try await client.send(.post, "/v1/devices/d1/locations", json: Trace.batch([Trace.fix(Trace.origin, 0)]))
            #expect(count(merged, in: ingest) == 1)
            #expect(count(merged, in: try await client.send(.get, "/v1/events?after=0")) == 1)
            #expect(count(merged, in: try await client.send(.get, "/v1/subscriptions/\(id)/events?after=0")) == 1)
        }
    }

    @Test func webhookPayloadsCarryTheExactNumbers() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(#"{"type":"significantChange","maxLocationAge":null,"properties":\#(Self.sent)}"#)
                _ = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                _ = try await client.postFixes("d1", [Trace.fix(Trace.origin, 0)])
                let got = try await receiver.wait { $0.count >= 1 }
                #expect(got.first?.body.contains(#""subscriptionProperties":\#(Self.written)"#) == true, "\(got.first?.body ?? "")")
            }
        }
    }
}
