import Access
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Where the apps carry the key: the Bearer header, the Basic password, or `key` /
/// `access_token` in the query, on the ingest routes only; `feed` keys suffice and a reader's do not.
@Suite(.watchdog) struct IngestAdapterAccessTests {
    static let osmAnd = "/v1/ingest/osmand?id=van&lat=60&lon=30&timestamp=1377177267"

    @Test func theKeyRidesWhereTheAppCanPutIt() async throws {
        try await KeyedApp.withClient(keys: [("acme", .feed), ("acme", .reader), ("acme", .admin)]) { client, tokens, _ in
            let feed = tokens["acme/feed"]!
            let basic = "Basic " + Data("jane:\(feed)".utf8).base64EncodedString()
            #expect(try await client.raw(.get, Self.osmAnd + "&key=\(feed)").status == .ok)
            #expect(try await client.raw(.get, Self.osmAnd + "&access_token=\(feed)").status == .ok)
            #expect(try await client.raw(.post, Self.osmAnd, headers: [.authorization: basic]).status == .ok)
            #expect(try await client.raw(.post, Self.osmAnd, headers: [.authorization: "Bearer \(feed)"]).status == .ok)
            let owntracks = try await client.raw(.post, "/v1/ingest/owntracks", body: #"{"_type":"location","lat":1,"lon":2,"tst":1441984413}"#,
                                                 contentType: "application/json", headers: [.authorization: basic, HTTPField.Name("X-Limit-D")!: "phone"])
            #expect(owntracks.status == .ok && String(buffer: owntracks.body) == "[]")
            // The key is never an attribute.
            let fixes = try await client.raw(.get, "/v1/devices/van/locations", headers: [.authorization: "Bearer \(tokens["acme/admin"]!)"])
            #expect(!String(buffer: fixes.body).contains(feed) && String(buffer: fixes.body).contains("2013-08-22T13:14:27.000Z"))
            let stored = try await client.raw(.get, "/v1/devices/jane:phone/locations", headers: [.authorization: "Bearer \(tokens["acme/admin"]!)"])
            #expect(String(buffer: stored.body).contains("2015-09-11T15:13:33.000Z"))

            // No key, a wrong one, or one whose role may not ingest.
            #expect(try await client.raw(.get, Self.osmAnd).status == .unauthorized)
            #expect(try await client.raw(.get, Self.osmAnd + "&key=mrd_nope_nope").status == .unauthorized)
            #expect(try await client.raw(.get, Self.osmAnd + "&key=\(tokens["acme/reader"]!)").status == .forbidden)
            // Elsewhere the query and Basic carry nothing.
            #expect(try await client.raw(.get, "/v1/devices/van/locations?key=\(feed)").status == .unauthorized)
            #expect(try await client.raw(.get, "/v1/devices/van/locations", headers: [.authorization: basic]).status == .unauthorized)
        }
    }
}
