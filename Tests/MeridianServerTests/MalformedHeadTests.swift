import Foundation
import HummingbirdTesting
import MeridianServer
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// A request head NIO's parser refuses is answered problem+json 400 and the connection closes,
/// on a live server (the router test client never meets the parser). Hummingbird answered these
/// with an empty 400 without a content type.
@Suite(.watchdog) struct MalformedHeadTests {
    /// Writes `bytes` on a new connection and reads until the server closes it (or 15 s pass).
    static func exchange(port: Int, _ bytes: [UInt8]) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        let deadline = ContinuousClock.now + .seconds(15)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            var text = ""
            for try await buffer in inbound {
                text += String(buffer: buffer)
                if ContinuousClock.now > deadline { break }
            }
            return text
        }
    }

    static func get(_ target: [UInt8]) -> [UInt8] {
        Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    }

    /// The answers in `text`, in order: each status, whether it is problem+json, and its body
    /// (`Content-Length` bytes).
    static func answers(_ text: String) -> [(status: String, problem: Bool, body: String)] {
        var rest = Substring(text)
        var answers: [(String, Bool, String)] = []
        while rest.hasPrefix("HTTP/1.1 "), let end = rest.range(of: "\r\n\r\n") {
            let head = rest[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length: ") }.flatMap { Int($0.dropFirst(16)) } ?? 0
            let body = rest[end.upperBound...].utf8.prefix(length)
            answers.append((String(rest.dropFirst(9).prefix(3)), head.contains("content-type: application/problem+json"), String(decoding: body, as: UTF8.self)))
            rest = Substring(String(decoding: rest[end.upperBound...].utf8.dropFirst(length), as: UTF8.self))
        }
        return answers
    }

    @Test func anUnreadableHeadIsProblemJSON400() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let heads: [(String, [UInt8])] = [
                ("a 4 KB cluster id of raw 0xFF bytes", Self.get(Array("/v1/clusters/".utf8) + Array(repeating: 0xFF, count: 4_096))),
                ("a target over the 80 KiB head", Self.get(Array("/v1/clusters/".utf8) + Array(repeating: UInt8(ascii: "A"), count: 100_000))),
                ("a method that is not a token", Array("G@T /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)),
            ]
            for (name, bytes) in heads {
                let answers = Self.answers(try await Self.exchange(port: port, bytes))
                #expect(answers.count == 1 && answers.first?.status == "400" && answers.first?.problem == true, "\(name): \(answers)")
                let problem = try JSONDecoder().decode(Problem.self, from: Data((answers.first?.body ?? "").utf8))
                #expect(problem.status == 400 && problem.detail?.contains("the connection closes") == true, "\(name): \(problem)")
            }
        }
    }

    /// A malformed head pipelined after a good request is answered after that request's answer.
    @Test func aMalformedHeadAfterAGoodRequestIsAnsweredSecond() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let good = Self.get(Array("/v1/clusters/AAAA".utf8))
            let bad = Self.get(Array("/v1/clusters/".utf8) + [0xFF, 0xFE])
            let answers = Self.answers(try await Self.exchange(port: port, good + bad))
            #expect(answers.map(\.status) == ["404", "400"] && answers.allSatisfy(\.problem), "\(answers)")
        }
    }
}
