import Access
import Annotations
import Foundation
import Geodesy
import MapGeometry
import MeridianAPI
import Storage
import Testing
import TestSupport
import Timeline
import WireJSON

import MeridianHTTP
@testable import MeridianServer

/// Each `typeOverrides` entry of the generator's config took effect: the contract's schema type is
/// the hand-written one (checked at build time by the assignments), and it keeps what the generated
/// one could not say.
@Suite(.watchdog) struct TypeOverridesTests {
    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    @Test func theCQL2FilterIsKeptAsItsJSON() throws {
        let filter: CQL2FilterInput = try decode(Components.Schemas.CQL2Filter.self, #"{"op":"=","args":[{"property":"kind"},"shop"]}"#)
        #expect(filter.json["op"] == .string("="))
        #expect(try decode(Components.Schemas.CQL2Filter.self, "true").json == .bool(true))
        #expect(try decode(Components.Schemas.CQL2Filter.self, #""kind = 'shop'""#).json == .string("kind = 'shop'"))
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.CQL2Filter.self, "[1]") }
    }

    @Test func theAnnotationPatchKeepsItsNulls() throws {
        let patch: AnnotationMergePatch = try decode(Components.Schemas.AnnotationPatch.self, #"{"title":null,"properties":{"a":null,"b":1}}"#)
        #expect(patch.members == ["title": .null, "properties": .object(["a": .null, "b": .number(1)])])
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.AnnotationPatch.self, #"{"displayPriority":"high"}"#) }
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.AnnotationPatch.self, #"{"id":"x"}"#) }
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.AnnotationPatch.self, #"{"coordinate":{"altitude":1}}"#) }
    }

    @Test func theSubscriptionPatchTellsNullFromAbsent() throws {
        let patch: SubscriptionMergePatch = try decode(Components.Schemas.SubscriptionPatch.self, #"{"maxLocationAge":null,"dwell":30}"#)
        #expect(patch.members["maxLocationAge"] == .null && patch.members["name"] == nil)
        #expect(patch.maxLocationAge == nil && patch.dwell == 30)
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.SubscriptionPatch.self, #"{"type":"region"}"#) }
    }

    @Test func theSubscriptionInputTellsANullLimitFromAbsent() throws {
        let null: SubscriptionCreation = try decode(Components.Schemas.SubscriptionInput.self, #"{"type":"significantChange","maxLocationAge":null}"#)
        #expect(null.nulls == ["maxLocationAge"])
        let absent = try decode(Components.Schemas.SubscriptionInput.self, #"{"type":"region","region":{"circle":{"center":{"latitude":1,"longitude":2},"radius":100}}}"#)
        #expect(absent.nulls.isEmpty)
        guard case .region = absent.kind else { Issue.record("not a region subscription"); return }
        #expect(throws: DecodingError.self) { try decode(Components.Schemas.SubscriptionInput.self, #"{"type":"other"}"#) }
    }

    @Test func theWebhookPatchTellsNullFromAbsent() throws {
        let patch: WebhookMergePatch = try decode(Components.Schemas.WebhookPatch.self, #"{"subscriptionIds":null,"state":"active"}"#)
        #expect(patch.nulls == ["subscriptionIds"] && patch.state == .active && patch.subscriptionIds == nil)
        #expect(try decode(Components.Schemas.WebhookPatch.self, #"{"subscriptionIds":["a"]}"#).nulls.isEmpty)
    }

    @Test func theFeatureCollectionKeepsItsMembers() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"pop":null}}]}"#
        let collection: FeatureCollectionBody = try decode(Components.Schemas.FeatureCollection.self, text)
        #expect(collection.features.count == 1)
        #expect(collection.members == Array(text.utf8).withUnsafeBytes { JSONValueParser.parse($0)?.objectValue })
    }
}

/// Called through `APIProtocol` (no middleware), the handlers read their whole input from `input`.
@Suite(.watchdog) struct HandlerInputTests {
    @Test func searchCalledDirectlyFilters() async throws {
        let tenants = try await TenantSpace(storage: DatabasePlace.open(":memory:"))
        let store = try await tenants.tenant(.default).annotations
        _ = try await store.importContents([
            AnnotationContent(coordinate: Coordinate(latitude: 1, longitude: 1), kind: "shop"),
            AnnotationContent(coordinate: Coordinate(latitude: 2, longitude: 2), kind: "cafe"),
        ])
        let handler = APIHandler(contract: try Contract.load(), limits: Limits(maxBatchSize: 10), transformers: CRSTransformerPool(), tenants: tenants,
                                 streams: StreamGate(limit: 4, metrics: ServerMetrics()), metrics: ServerMetrics(),
                                 web: try WebPage(root: WebPage.defaultRoot, baseMapPath: WebPage.defaultBaseMap))
        let filter = CQL2FilterInput(.object(["op": .string("="), "args": .array([.object(["property": .string("kind")]), .string("shop")])]))
        let output = try await RequestScope.$principal.withValue(.open) {
            try await handler.searchAnnotations(.init(body: .json(.init(filter: filter))))
        }
        guard case .ok(let ok) = output, case .json(let page) = ok.body else { Issue.record("no page"); return }
        #expect(page.annotations.map(\.kind) == ["shop"])
    }
}
