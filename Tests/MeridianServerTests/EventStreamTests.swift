import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// `GET /v1/events/stream` on a live server, read by a raw socket client as it streams (the
/// test clients wait for whole bodies, which a stream never ends).
@Suite(.watchdog) struct EventStreamTests {
    @Test func streamResumesAfterLastEventIDThenPushesNewEventsAndHeartbeats() async throws {
        var configuration = try await TestApp.configuration()
        configuration.eventStreamHeartbeat = .milliseconds(200)
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let sub = try await client.subscribe(TrackingContractTests.everyFix)
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(10), 10)])

            var posted = false
            let text = try await RawStream.read(port: port, path: "/v1/events/stream", headers: ["Last-Event-ID": "1"]) { text in
                if !posted && text.contains("id: 2\n") {
                    posted = true
                    _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(20), 20)])
                }
                return text.contains("id: 3\n") && text.contains(": heartbeat")
            }
            #expect(text.contains("content-type: text/event-stream"))
            #expect(!text.contains("id: 1\n"))
            let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }
            #expect(ids == ["id: 2", "id: 3"])
            #expect(text.contains("event: significantChange\ndata: {"))
            #expect(text.contains(#""subscriptionId":"\#(sub.id)""#))

            // `after` and a subscription filter: the whole log of that subscription from the start.
            let replay = try await RawStream.read(port: port, path: "/v1/events/stream?after=0&subscriptionId=\(sub.id)") { $0.contains("id: 3\n") }
            #expect(replay.split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 1", "id: 2", "id: 3"])
            _ = try await client.send(.get, "/v1/events/stream", headers: [HTTPField.Name("Last-Event-ID")!: "three"]).problem(.badRequest)
            _ = try await client.send(.get, "/v1/events/stream?subscriptionId=nope").problem(.notFound)
        }
    }
}

extension EventStreamTests {
    /// A backlog far larger than one page of the log reaches the client whole and in order.
    @Test func aLongBacklogStreamsWithoutLoss() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            _ = try await client.subscribe(TrackingContractTests.everyFix)
            for batch in 0..<5 {
                let fixes = (0..<1_000).map { Trace.fix(Trace.at(Double($0)), Double(batch * 1_000 + $0)) }
                _ = try await client.postFixes("car-1", fixes)
            }
            let text = try await RawStream.read(port: port, path: "/v1/events/stream?after=0", untilSeeing: "id: 5000\n")
            let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
            #expect(ids == Array(1...5_000))
        }
    }
}

extension EventStreamTests {
    /// An erased device's events stay in the stream's numbering as `event: erased` stubs that
    /// carry nothing but their sequence.
    @Test func anErasedDevicesEventsStreamAsStubs() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            _ = try await client.subscribe(TrackingContractTests.everyFix)
            _ = try await client.postFixes("gone", [Trace.fix(Trace.at(0), 0)])
            _ = try await client.postFixes("kept", [Trace.fix(Trace.at(0), 10)])
            #expect(try await client.send(.delete, "/v1/devices/gone").status == .noContent)
            let text = try await RawStream.read(port: port, path: "/v1/events/stream?after=0") { $0.contains("id: 2\n") }
            #expect(text.contains("id: 1\nevent: erased\ndata: {\"erased\":true,\"sequence\":1}\n\n"), "\(text)")
            #expect(text.contains("id: 2\nevent: initial\ndata: {"), "\(text)")
            #expect(!text.contains("gone"))
        }
    }
}
