import Foundation
import NIOCore
import NIOPosix

/// Reads an HTTP/1.1 response off a socket as it arrives, until `done` says so (or 15 s pass).
public enum RawStream {
    public static func read(port: Int, path: String, headers: [String: String] = [:], until done: (String) async throws -> Bool) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        let deadline = ContinuousClock.now + .seconds(15)
        return try await channel.executeThenClose { inbound, outbound in
            let head = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
            try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(head)\r\n"))
            var text = ""
            for try await buffer in inbound {
                text += String(buffer: buffer)
                if try await done(text) || ContinuousClock.now > deadline { break }
            }
            // "\r\n" is one Character in Swift: unfold it so the SSE lines split on "\n".
            return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "Content-Type", with: "content-type")
        }
    }

    /// Reads until `marker` has arrived. Each look covers only what came since the last one (and
    /// the marker's length before it), so a long stream is not searched again from its start at
    /// every chunk: a backlog of megabytes is read at the speed it arrives.
    public static func read(port: Int, path: String, headers: [String: String] = [:], untilSeeing marker: String) async throws -> String {
        let needle = Array(marker.utf8)
        var scanned = 0
        return try await read(port: port, path: path, headers: headers) { text in
            let bytes = text.utf8
            let start = bytes.index(bytes.startIndex, offsetBy: max(0, scanned - needle.count + 1))
            scanned = bytes.count
            return bytes[start...].firstRange(of: needle) != nil
        }
    }
}
