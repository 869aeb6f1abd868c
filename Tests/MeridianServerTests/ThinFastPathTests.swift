import Annotations
import Foundation
import Geodesy
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Access
import Storage
import AnnotationIndex
import Testing
import TestSupport
import MeridianHTTP
@testable import MeridianServer
import Timeline
import WireJSON

/// The thinning fast route writes the same bytes as the generated handler's types encode to
/// (absent optionals left out on both), for thin answers and for clusters.
@Suite(.watchdog) struct ThinFastPathTests {
    @Test func theDirectWriterMatchesTheGeneratedEncoderByteForByte() async throws {
        let tenants = try await TenantSpace(storage: DatabasePlace.open(":memory:"))
        let tenant = try await tenants.tenant(.default)
        let store = tenant.annotations
        var random = SystemRandomNumberGenerator()
        var contents: [AnnotationContent] = []
        for i in 0..<400 {
            contents.append(AnnotationContent(
                externalId: i % 5 == 0 ? "x\(i)" : nil,
                coordinate: Coordinate(latitude: Double.random(in: 40...41, using: &random), longitude: i % 50 == 0 ? 10.5 : Double.random(in: 10...11, using: &random)),
                title: i % 3 == 0 ? "Café \"\(i)\"\n" : nil, subtitle: i % 7 == 0 ? "sub" : nil,
                kind: ["a", "b", nil][i % 3], clusteringIdentifier: i % 4 == 0 ? "g" : nil,
                displayPriority: i % 97 == 0 ? 1000 : 500, properties: i % 2 == 0 ? ["n": .number(Double(i) / 3), "s": .array([.bool(true), .null])] : [:]))
        }
        // Ten coincident points: a stack, whose cluster has no expansion zoom.
        contents += (0..<10).map { _ in AnnotationContent(coordinate: Coordinate(latitude: 40.25, longitude: 10.25), kind: "a") }
        _ = try await store.importContents(contents)
        let handler = APIHandler(contract: try Contract.load(), limits: Limits(maxBatchSize: 10), transformers: CRSTransformerPool(), tenants: tenants,
                                 streams: StreamGate(limit: 4, metrics: ServerMetrics()), metrics: ServerMetrics(),
                                 web: try WebPage(root: WebPage.defaultRoot, baseMapPath: WebPage.defaultBaseMap))
        try await RequestScope.$principal.withValue(.open) { try await compare(handler, tenant) }
    }

    private func compare(_ handler: APIHandler, _ tenant: TenantSpace.Tenant) async throws {
        // The runtime's encoder, with the configuration `buildRouterAndTenants` gives it.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(try APICoding.configuration.dateTranscoder.encode(date))
        }
        // Each answer has its own token.
        func untokened(_ bytes: [UInt8]) -> String {
            String(decoding: bytes, as: UTF8.self).replacing(/"deltaToken":"[^"]*"/, with: "")
        }
        var seen: [String: Int] = [:]
        for (zoom, weighted) in [(3.0, false), (7.5, false), (9.0, false), (13.0, false), (22.0, false), (7.5, true), (13.0, true)] {
            let center = zoom == 22 ? Components.Schemas.Coordinate(latitude: 40.25, longitude: 10.25) : .init(latitude: 40.5, longitude: 10.5)
            var body = Components.Schemas.ThinRequest(viewport: .init(
                size: .init(width: 800, height: 600), heading: zoom == 9 ? 30 : nil, center: center, zoomLevel: zoom))
            if weighted {
                // Weights and aggregates of a property half the annotations have, and one none has.
                (body.weight, body.maxZoom) = ("n", 12)
                body.aggregates = .init(additionalProperties: ["n": [.sum, .min, .max, .mean, .count], "none": [.count, .max]])
            }
            let kinds: [String: [AggregateKind]] = weighted ? ["n": [.count, .max, .mean, .min, .sum], "none": [.count, .max]] : [:]
            let fast = ThinAnswerWriter.write(try await ThinningAnswer(ThinningQuery(body, filter: nil), tenant: tenant))
            guard case .ok(let ok) = try await handler.thinAnnotations(.init(body: .json(body))), case .json(let answer) = ok.body else {
                Issue.record("no answer"); continue
            }
            #expect(untokened(fast) == untokened(Array(try encoder.encode(answer))), "zoom \(zoom)")
            for item in answer.items ?? [] {
                switch item {
                case .annotation: seen["annotation", default: 0] += 1
                case .cluster(let cluster):
                    seen["cluster", default: 0] += 1
                    if cluster.expansionZoom == nil { seen["stack", default: 0] += 1 }
                    if cluster.clusteringIdentifier == nil { seen["no identifier", default: 0] += 1 }
                    if cluster.aggregates != nil { seen["aggregated", default: 0] += 1 }
                    let parameter = kinds.flatMap { property, kinds in kinds.map { "\(property):\($0.rawValue)" } }
                    guard let id = ClusterID(cluster.id), let found = try await tenant.cluster(id, aggregates: kinds),
                          case .ok(let one) = try await handler.getCluster(.init(path: .init(clusterId: cluster.id), query: .init(aggregate: weighted ? parameter : nil))),
                          case .json(let wire) = one.body
                    else { Issue.record("cluster \(cluster.id) not found"); continue }
                    let direct = ClusterJSON.write(found, aggregateKinds: kinds)
                    #expect(String(decoding: direct, as: UTF8.self) == String(decoding: try encoder.encode(wire), as: UTF8.self))
                }
            }
        }
        // Deltas alike both ways: two answers of one request, a write, then each path with its own since.
        var body = Components.Schemas.ThinRequest(viewport: .init(size: .init(width: 800, height: 600), center: .init(latitude: 40.5, longitude: 10.5), zoomLevel: 9))
        body.aggregates = .init(additionalProperties: ["n": [.sum, .count]])
        let query = try ThinningQuery(body, filter: nil)
        let (first, second) = (try await ThinningAnswer(query, tenant: tenant), try await ThinningAnswer(query, tenant: tenant))
        _ = try await tenant.annotations.create(AnnotationContent(coordinate: Coordinate(latitude: 40.5, longitude: 10.5), properties: ["n": .number(5)]))
        var sinceSecond = query
        sinceSecond.since = second.deltaToken
        let fastDelta = ThinAnswerWriter.write(try await ThinningAnswer(sinceSecond, tenant: tenant))
        body.since = first.deltaToken
        guard case .ok(let ok) = try await handler.thinAnnotations(.init(body: .json(body))), case .json(let generated) = ok.body else {
            Issue.record("no delta answer"); return
        }
        #expect(generated.reset == false && generated.items == nil && !((generated.added ?? []) + (generated.changed ?? [])).isEmpty)
        #expect(untokened(fastDelta) == untokened(Array(try encoder.encode(generated))), "a delta is written alike both ways")
        for kind in ["annotation", "cluster", "stack", "no identifier", "aggregated"] {
            #expect(seen[kind, default: 0] > 0, "every kind of item was compared: \(seen)")
        }
    }
}

/// Times are written the way Foundation's ISO 8601 formatter (the generated encoder's) writes them.
@Suite(.watchdog) struct APITimeTests {
    @Test func millisecondsRoundTheWayTheEncoderDoes() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let samples: [Int64] = [0, 951_782_400_000, 4_102_444_799_999] + (0..<3000).map { 1_795_000_000_000 + Int64($0) * 7 }
        for ms in samples {
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(Instant(millisecondOf: date).rfc3339 == formatter.string(from: date), "\(ms)")
        }
    }
}
