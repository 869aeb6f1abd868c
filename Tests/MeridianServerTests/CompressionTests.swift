import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianHTTP
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `Content-Encoding: gzip` when the client asks for it and the answer is worth it; the same
/// bytes once decompressed, the same validators.
@Suite(.watchdog) struct CompressionTests {
    static func gunzip(_ buffer: ByteBuffer) throws -> ByteBuffer {
        var buffer = buffer
        return try buffer.decompress(with: .gzip())
    }

    @Test func aLargeAnswerIsGzippedWhenAskedAndDecompressesToTheIdentityAnswer() async throws {
        try await TestApp.withClient { client in
            for index in 0..<40 {
                _ = try await client.createAnnotation(#"{"coordinate":{"latitude":\#(Double(index) / 10),"longitude":2},"title":"pin \#(index)"}"#)
            }
            for path in ["/v1/annotations/export", "/v1/annotations?limit=40", "/openapi.yaml", "/openapi.json"] {
                let identity = try await client.execute(uri: path, method: .get)
                #expect(identity.headers[.contentEncoding] == nil && identity.body.readableBytes > CompressionMiddleware<BasicRequestContext>.minimumSize, "\(path)")
                #expect(identity.headers[values: .vary].contains("Accept-Encoding"), "\(path)")
                for asked in ["gzip", "br;q=1.0, gzip;q=0.8, *;q=0.1", "deflate, *"] {
                    let gzipped = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: asked])
                    #expect(gzipped.status == .ok && gzipped.headers[.contentEncoding] == "gzip", "\(path) \(asked)")
                    #expect(gzipped.headers[values: .vary].contains("Accept-Encoding"), "\(path)")
                    #expect(gzipped.headers[.contentLength] == String(gzipped.body.readableBytes), "\(path)")
                    #expect(gzipped.body.readableBytes < identity.body.readableBytes / 2, "\(path): \(gzipped.body.readableBytes) of \(identity.body.readableBytes)")
                    #expect(try Self.gunzip(gzipped.body) == identity.body, "\(path) decompresses to the identity answer")
                }
                for refused in ["gzip;q=0", "identity", "br"] {
                    let plain = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: refused])
                    #expect(plain.headers[.contentEncoding] == nil && plain.body == identity.body, "\(path) \(refused)")
                }
            }
        }
    }

    @Test func smallAnswersAndEventStreamsAreNeverCompressed() async throws {
        try await TestApp.withClient(configure: { $0.maxWait = .milliseconds(100) }) { client in
            let small = try await client.execute(uri: "/v1/convert/coordinates-to-map-points", method: .post,
                                                  headers: [.acceptEncoding: "gzip", .contentType: "application/json"],
                                                  body: ByteBuffer(string: #"{"coordinates":[{"latitude":1,"longitude":2}]}"#))
            // Not compressed, but of a type that is when larger: caches are told it varies.
            #expect(small.status == .ok && small.headers[.contentEncoding] == nil && small.headers[values: .vary].contains("Accept-Encoding"))
            let problem = try await client.execute(uri: "/v1/nowhere", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(problem.status == .notFound && problem.headers[.contentEncoding] == nil)
            let stream = try await client.execute(uri: "/v1/events/stream?after=0", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(stream.status == .ok && stream.headers[.contentEncoding] == nil && String(buffer: stream.body).hasPrefix("retry:"))
        }
    }

    @Test func conditionalRequestsMatchTheSameTagCompressedOrNot() async throws {
        try await TestApp.withClient { client in
            let big = #"{"coordinate":{"latitude":1,"longitude":2},"properties":{"note":"\#(String(repeating: "map ", count: 600))"}}"#
            let made = try await client.createAnnotation(big)
            let path = "/v1/annotations/\(made.id)"
            let gzipped = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            let tag = try #require(gzipped.headers[.eTag])
            let identity = try await client.execute(uri: path, method: .get)
            #expect(identity.headers[.eTag] == tag)
            let notModified = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: tag])
            #expect(notModified.status == .notModified && notModified.headers[.eTag] == tag && notModified.body.readableBytes == 0)
            #expect(notModified.headers[.contentEncoding] == nil)
            let patched = try await client.execute(uri: path, method: .patch, headers: [.acceptEncoding: "gzip", .ifMatch: tag, .contentType: "application/merge-patch+json"],
                                                   body: ByteBuffer(string: #"{"title":"kept"}"#))
            #expect(patched.status == .ok && patched.headers[.contentEncoding] == "gzip")
            #expect(String(buffer: try Self.gunzip(patched.body)).contains(#""title":"kept""#))
        }
    }
}
