import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianHTTP
import MeridianServer
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TestSupport

/// Slow and greedy clients on a live server with short limits: a head, a body or an idle
/// keep-alive that keeps the server waiting past its timeout is closed; an address holds at most
/// its share of connections; a client that hangs up stops its request.
@Suite(.watchdog) struct ConnectionLimitTests {
    /// The server with the defaults but what `configure` shortens: each test shortens only the
    /// limit it tries, so the test's own client (kept alive, idle between requests on a loaded
    /// machine) is not cut off by another.
    static func app(_ configure: (inout ServerConfiguration) -> Void) async throws -> some ApplicationProtocol {
        var configuration = try await TestApp.configuration()
        configure(&configuration)
        return try await buildApplication(configuration)
    }

    @Test func aHeadDrippedAByteAtATimeIsClosed() async throws {
        try await Self.app { $0.connections.headTimeout = .seconds(1) }.test(.live) { client in
            let connection = try await RawConnection(port: try #require(client.port))
            // (On a loaded machine the server may have closed it already: that is the answer too.)
            try? await connection.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            // A header byte every 100 ms: bytes, but never a whole head.
            let closed = try await connection.closesWithin(.seconds(10)) { try await connection.write("X") }
            #expect(closed, "the server kept a connection whose head never ended")
        }
    }

    @Test func aStalledOrDrippedBodyIsClosed() async throws {
        try await Self.app { $0.connections.bodyTimeout = .seconds(1) }.test(.live) { client in
            let port = try #require(client.port)
            let stalled = try await RawConnection(port: port)
            try await stalled.write("POST /v1/annotations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            #expect(try await stalled.closesWithin(.seconds(10)), "a body stalled after {")
            let dripped = try await RawConnection(port: port)
            try await dripped.write("POST /v1/annotations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
            #expect(try await dripped.closesWithin(.seconds(10)) { try await dripped.write(" ") }, "a body at 10 bytes a second (1 KiB would take 100 s)")
        }
    }

    @Test func anIdleKeepAliveIsClosedButABusyOneIsNot() async throws {
        // An idle limit far above the pauses between requests, even on a loaded machine.
        try await Self.app { $0.connections.idleTimeout = .seconds(3) }.test(.live) { client in
            let port = try #require(client.port)
            let busy = try await RawConnection(port: port)
            for _ in 0..<6 {
                try await busy.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(try await busy.readUntil("\r\n\r\n{").contains("200 OK"))
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(!busy.isClosed, "requests every 200 ms keep a connection whose idle limit is 3 s")
            #expect(try await busy.closesWithin(.seconds(10)), "then idle past the limit, it is closed")
        }
    }

    @Test func anAddressHoldsAtMostItsShareOfConnections() async throws {
        try await Self.app { $0.connections.maxPerAddress = 4 }.test(.live) { client in
            let port = try #require(client.port)
            // The test client's own kept-alive connection is one of the four.
            #expect(try await client.send(.get, "/healthz").status == .ok)
            var held: [RawConnection] = []
            for _ in 0..<3 {
                // Answered, so the server has counted it before the next one connects.
                let connection = try await RawConnection(port: port)
                try await connection.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                #expect(try await connection.readUntil("\r\n\r\n{").contains("200 OK"))
                held.append(connection)
            }
            let extra = try await RawConnection(port: port)
            #expect(try await extra.closesWithin(.seconds(5)), "a fifth connection from 127.0.0.1")
            for connection in held { #expect(!connection.isClosed) }
            try await held[0].close()
            // Once one is gone, another is let in (and answered), as soon as the server has seen it go.
            var answered = false
            for _ in 0..<100 where !answered {
                let admitted = try await RawConnection(port: port)
                try? await admitted.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                answered = try await admitted.readUntil("\r\n\r\n{", within: .milliseconds(500)).contains("200 OK")
            }
            #expect(answered)
        }
    }

    /// A chunked body whose chunk size is not hexadecimal is malformed HTTP: 400 problem+json,
    /// then the connection closes (what follows cannot be trusted as the next request).
    @Test func aMalformedChunkSizeIs400ProblemJSON() async throws {
        try await Self.app { _ in }.test(.live) { client in
            let connection = try await RawConnection(port: try #require(client.port))
            try await connection.write("POST /v1/annotations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            let answer = try await connection.readUntil("}")
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.lowercased().contains("content-type: application/problem+json"), "\(answer)")
            #expect(try await connection.closesWithin(.seconds(10)))
        }
    }

    @Test func aClientThatHangsUpStopsItsLongPoll() async throws {
        // One long poll per key at a time: the second is admitted only if the first stopped.
        try await Self.app { $0.maxStreamsPerKey = 1 }.test(.live) { client in
            let first = try await RawConnection(port: try #require(client.port))
            try await first.write("GET /v1/events?wait=25 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await client.send(.get, "/v1/events").status == .ok, "a poll that does not wait takes no place")
            // Once the server has the first poll, it holds the key's one place.
            var held = false
            let holding = ContinuousClock.now + .seconds(10)
            while !held, ContinuousClock.now < holding {
                held = try await client.send(.get, "/v1/events?wait=0.05").status == .tooManyRequests
            }
            #expect(held, "the first poll holds the key's one place")
            try await first.close()
            var status = HTTPResponse.Status.tooManyRequests
            let deadline = ContinuousClock.now + .seconds(10)
            while status == .tooManyRequests, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                status = try await client.send(.get, "/v1/events?wait=0.2").status
            }
            #expect(status == .ok, "the hung-up poll gave its place back")
        }
    }
}

/// A raw HTTP/1.1 connection to 127.0.0.1 that writes what it is told and notices when the
/// server closes it.
final class RawConnection: Sendable {
    /// What arrived: the bytes so far, and whether the server closed.
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let text = Mutex("")
        let closed = Atomic(false)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            text.withLock { $0 += String(buffer: buffer) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.store(true, ordering: .sequentiallyConsistent)
        }
    }
    private let channel: any Channel
    private let seen = Collector()

    init(port: Int) async throws {
        let seen = seen
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(seen) } }
            .connect(host: "127.0.0.1", port: port).get()
    }

    var isClosed: Bool { seen.closed.load(ordering: .sequentiallyConsistent) }

    func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Whether the server closes the connection within `limit`, running `tick` every 100 ms meanwhile
    /// (a write to a closed connection ends the wait too).
    func closesWithin(_ limit: Duration, tick: () async throws -> Void = {}) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isClosed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            do { try await tick() } catch { break }
        }
        try? await Task.sleep(for: .milliseconds(50))
        return isClosed
    }

    /// What arrived up to and including `marker`, consumed (waits at most `limit`, then "").
    func readUntil(_ marker: String, within limit: Duration = .seconds(10)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, !isClosed || seen.text.withLock({ $0.contains(marker) }) {
            let found = seen.text.withLock { text -> String? in
                guard let range = text.range(of: marker) else { return nil }
                defer { text.removeSubrange(..<range.upperBound) }
                return String(text[..<range.upperBound])
            }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        return ""
    }

    func close() async throws {
        try? await channel.close()
    }

    deinit { channel.close(promise: nil) }
}
