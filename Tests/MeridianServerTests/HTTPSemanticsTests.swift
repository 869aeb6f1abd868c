import Delivery
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianHTTP
import NIOCore
import Testing
import TestSupport

@testable import MeridianServer

/// HTTP as RFC 9110 says, on every operation of the contract, fast route or generated handler:
/// `Accept` never makes a 406, `HEAD` is wherever `GET` is, `OPTIONS` says `Allow`.
@Suite(.watchdog) struct HTTPSemanticsTests {
    /// What clients that exist send: curl, GDAL 3.6, OpenAPI Generator's clients, a tile client, a browser.
    static let accepts: [String?] = ["*/*", nil, "text/plain, application/json", "application/problem+json", "application/x-protobuf", "text/html"]

    /// The testing server with streams that end by themselves (so a test reads a whole one) and
    /// webhooks that may name loopback.
    static func withSeededClient(_ body: @Sendable @escaping (any TestClientProtocol, OperationExamples.Seed) async throws -> Void) async throws {
        try await TestApp.withClient(configure: { $0.maxWait = .milliseconds(100); $0.delivery.allowed = [CIDR("127.0.0.0/8")!] }) { client in
            try await body(client, try await OperationExamples.seed(client))
        }
    }

    @Test func everyOperationAnswersWhateverAcceptSays() async throws {
        let representations = try Contract.load().representations
        try await Self.withSeededClient { client, seed in
            let examples = OperationExamples.examples(seed)
            for operation in try await OperationExamples.operations(client) {
                let make = try #require(examples[operation.id], "no example request for \(operation.id)")
                let types = try #require(representations["\(operation.method) \(operation.template)"])
                var first: TestResponse?
                for accept in Self.accepts {
                    let example = try await make(client)
                    let response = try await example.send(client, headers: accept.map { [.accept: $0] } ?? [:])
                    let label = "\(operation.id) Accept: \(accept ?? "none"): \(String(buffer: response.body).prefix(300))"
                    #expect(response.status != .notAcceptable, "\(label)")
                    // The page and its base map need `make web`'s files (503 without them).
                    #expect(response.status.code < 500 || ["getPage", "getBaseMapInfo", "getBaseMapTile"].contains(operation.id), "\(label)")
                    let baseline = first ?? response
                    first = baseline
                    #expect(response.status == baseline.status, "\(label)")
                    if response.status.kind == .successful, let type = types.first {
                        // Where the contract has several, Accept chooses; else the first.
                        let chosen = NegotiationMiddleware<BasicRequestContext>.decision(types, accept: accept.map { [$0] } ?? [])
                        let expected = String(chosen?.split(separator: ",").first ?? Substring(type))
                        #expect(response.headers[.contentType]?.hasPrefix(expected) == true, "\(label): \(expected)")
                    } else {
                        #expect(response.headers[.contentType] == baseline.headers[.contentType], "\(label)")
                    }
                    if example.repeatable, response.headers[.contentType] == baseline.headers[.contentType] {
                        // A thin answer names itself (its deltaToken); the rest is the same bytes.
                        func untokened(_ body: ByteBuffer) -> String { String(buffer: body).replacing(/"deltaToken":"[^"]*"/, with: "") }
                        #expect(untokened(response.body) == untokened(baseline.body), "the same bytes: \(label)")
                    }
                }
            }
        }
    }

    @Test func theContractDocumentIsChosenByAcceptAndOtherwiseYAML() async throws {
        try await TestApp.withClient { client in
            for (accept, type) in [("text/plain, application/json", "application/json"), ("application/problem+json", "application/yaml"),
                                   ("text/html", "application/yaml"), ("application/*", "application/yaml"), ("application/yaml;q=0, */*", "application/json")] {
                let response = try await client.execute(uri: "/openapi.yaml", method: .get, headers: [.accept: accept])
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix(type) == true, "\(accept)")
            }
        }
    }

    @Test func fastRoutesAndGeneratedHandlersAnswerTheSameWhateverAcceptSays() async throws {
        try await TestApp.withClient { client in
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":2},"title":"a"}"#)
            for (path, members) in [("/v1/convert/coordinates-to-map-points", #""coordinates":[{"latitude":1,"longitude":2}]"#),
                                    ("/v1/convert/map-points-to-coordinates", #""mapPoints":[{"x":1,"y":2}]"#),
                                    ("/v1/annotations/search", #""filter":{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[[0,0],[20,0],[20,20],[0,20],[0,0]]]}]},"limit":5"#),
                                    ("/v1/annotations/nearest", #""point":{"latitude":1,"longitude":2}"#)] {
                for accept in Self.accepts {
                    let headers: HTTPFields = accept.map { [.accept: $0, .contentType: "application/json"] } ?? [.contentType: "application/json"]
                    let fast = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: "{\(members)}"))
                    // An extra top-level field makes the fast route decline; the generated decoder ignores it.
                    let generated = try await client.execute(uri: path, method: .post, headers: headers,
                                                             body: ByteBuffer(string: #"{\#(members),"note":"via the generated decoder"}"#))
                    #expect(fast.status == .ok && generated.status == .ok, "\(path) \(accept ?? "none"): \(String(buffer: fast.body)) \(String(buffer: generated.body))")
                    #expect(fast.body == generated.body && fast.headers[.contentType] == generated.headers[.contentType], "\(path) \(accept ?? "none")")
                }
            }
        }
    }

    @Test func headAnswersWhatGetAnswersWithoutTheBody() async throws {
        try await Self.withSeededClient { client, seed in
            let examples = OperationExamples.examples(seed)
            var checked = 0
            for operation in try await OperationExamples.operations(client) where operation.method == "GET" {
                let make = try #require(examples[operation.id], "no example request for \(operation.id)")
                let example = try await make(client)
                let get = try await example.send(client)
                var head = example
                head.method = .head
                let answer = try await head.send(client)
                #expect(answer.status == get.status, "\(operation.id)")
                #expect(answer.body.readableBytes == 0, "\(operation.id)")
                let ignored: Set<HTTPField.Name> = example.repeatable ? [HTTPField.Name.requestID] : [HTTPField.Name.requestID, .contentLength]
                let fields = { (response: TestResponse) in
                    response.headers.filter { !ignored.contains($0.name) }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
                }
                #expect(fields(answer) == fields(get), "\(operation.id)")
                // Content-Length as GET's: its body's length, or none for a stream.
                if example.repeatable {
                    #expect(answer.headers[.contentLength] == get.headers[.contentLength], "\(operation.id)")
                }
                checked += 1
            }
            #expect(checked >= 29, "every GET of the contract")
            // A path without GET keeps 405 (with Allow), and a HEAD answer never has a body.
            let refused = try await client.execute(uri: "/v1/viewport", method: .head)
            #expect(refused.status == .methodNotAllowed && refused.headers[.allow] == "OPTIONS, POST" && refused.body.readableBytes == 0)
            let missing = try await client.execute(uri: "/v1/nowhere", method: .head)
            #expect(missing.status == .notFound && missing.body.readableBytes == 0)
        }
    }

    @Test func aHeadNeitherWaitsNorHoldsAStreamPlace() async throws {
        try await TestApp.withClient(configure: { $0.maxStreamsPerKey = 2 }) { client in
            let start = ContinuousClock.now
            for path in ["/v1/events?after=0&wait=30", "/v1/annotations/changes?after=0&wait=30"] {
                let head = try await client.execute(uri: path, method: .head)
                #expect(head.status == .ok, "\(path): \(head.status) \(head.headers)")
            }
            #expect(ContinuousClock.now - start < .seconds(10), "a HEAD of a long poll does not wait")
            // A stream's place is given back with the body nobody reads: more HEADs than places all pass.
            for _ in 0..<5 {
                let head = try await client.execute(uri: "/v1/events/stream", method: .head)
                #expect(head.status == .ok && head.headers[.contentType]?.hasPrefix("text/event-stream") == true && head.body.readableBytes == 0)
            }
            // A refused wait is refused alike.
            let wait = try await client.execute(uri: "/v1/events?after=0&wait=oops", method: .head)
            #expect(wait.status == .badRequest)
        }
    }

    @Test func optionsSaysWhichMethodsAPathTakes() async throws {
        try await TestApp.withClient { client in
            for (path, allow) in [("/healthz", "GET, HEAD, OPTIONS"), ("/v1/annotations", "GET, HEAD, OPTIONS, POST"),
                                  ("/v1/viewport", "OPTIONS, POST"), ("/v1/webhooks/x1", "DELETE, GET, HEAD, OPTIONS, PATCH")] {
                let response = try await client.execute(uri: path, method: .options)
                #expect(response.status == .noContent && response.headers[.allow] == allow, "\(path)")
            }
        }
    }

    @Test func aLastEventIDOutsideItsPatternIs400NotAStream() async throws {
        try await TestApp.withClient(configure: { $0.maxWait = .milliseconds(100) }) { client in
            for id in [":D%(", "50%", "1+1", "%31"] {
                let problem = try await client.execute(uri: "/v1/events/stream", method: .get, headers: [HTTPField.Name("Last-Event-ID")!: id]).problem(.badRequest)
                #expect(problem.errors?.first?.parameter == "Last-Event-ID", "\(id)")
            }
            let resumed = try await client.execute(uri: "/v1/events/stream", method: .get, headers: [HTTPField.Name("Last-Event-ID")!: "0"])
            #expect(resumed.status == .ok)
        }
    }
}
