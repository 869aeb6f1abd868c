import MeridianHTTP
import Foundation
import MeridianAPI
import OpenAPIRuntime
import ServiceLifecycle
import Tracking

/// Server-Sent Events of the event log: `id: <sequence>`, `event: <type>`, `data: <Event JSON>`,
/// a `: heartbeat` comment after `heartbeat` without a message, resumable with `Last-Event-ID`.
///
/// Pull-based: the next page of the log is read only when the client has taken the previous
/// messages, so a slow client slows its own stream and never loses events. The stream ends when
/// the client goes away (its task is cancelled), its key is revoked (`event: revoked`, within a
/// second) or the server shuts down gracefully (`event: shutdown`).
struct EventStream: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    /// The caller's place among its key's open streams, held while the body lives.
    let lease: StreamGate.Lease
    let hub: TrackingHub
    let heartbeat: Duration
    /// When the stream ends by itself (``ServerConfiguration/maxWait``); nil: never.
    let ends: ContinuousClock.Instant?
    /// The stream starts after this sequence.
    let after: Int64
    /// Only this subscription's events, when set.
    let subscriptionId: String?
    /// Events read from the log per query.
    static let pageSize = 500

    var body: HTTPBody { HTTPBody(self, length: .unknown, iterationBehavior: .single) }

    func makeAsyncIterator() -> Iterator {
        Iterator(stream: self, cursor: after)
    }

    struct Iterator: AsyncIteratorProtocol {
        let stream: EventStream
        var cursor: Int64
        var page: ArraySlice<TrackingEvent> = []
        var started = false
        var finished = false
        var lastWrite = ContinuousClock.now

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if !started {
                started = true
                lastWrite = .now
                return ArraySlice("retry: 1000\n\n".utf8)
            }
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                if let event = page.popFirst() {
                    cursor = event.sequence
                    lastWrite = .now
                    return ArraySlice(EventStream.message(for: event).utf8)
                }
                let now = ContinuousClock.now
                if let ends = stream.ends, now >= ends { break }
                let due = Swift.min(lastWrite + stream.heartbeat, stream.ends ?? lastWrite + stream.heartbeat)
                if now >= due {
                    lastWrite = now
                    return ArraySlice(": heartbeat\n\n".utf8)
                }
                // The next page, waiting (as a long poll does) until the heartbeat is due.
                let (hub, subscriptionId, after) = (stream.hub, stream.subscriptionId, cursor)
                do {
                    page = try await stream.lease.whileValid {
                        try await cancelWhenGracefulShutdown {
                            try await hub.events(subscriptionId: subscriptionId, after: after, limit: EventStream.pageSize, wait: due - now)
                        }
                    }[...]
                } catch is StreamGate.KeyRevoked {
                    break
                }
            }
            stream.lease.end()
            // A revoked key's stream ends with a last message that says why (no reconnecting with it).
            if stream.lease.isRevoked {
                guard !finished else { return nil }
                finished = true
                return ArraySlice(EventStream.revokedMessage.utf8)
            }
            // A graceful shutdown says so in a last message, so the client knows to reconnect elsewhere.
            guard Task.isShuttingDownGracefully, !finished else { return nil }
            finished = true
            return ArraySlice(EventStream.shutdownMessage.utf8)
        }
    }

    /// The last message of a stream the server closes to shut down.
    static let shutdownMessage = "event: shutdown\ndata: {\"reason\":\"the server is shutting down; reconnect with Last-Event-ID\"}\n\n"

    /// The last message of a stream whose key was revoked.
    static let revokedMessage = "event: revoked\ndata: {\"reason\":\"the key of this stream was revoked\"}\n\n"

    /// One SSE message, named by the event's type (`erased` for what remains of an erased device's
    /// event); the JSON is one line, as `data:` needs.
    static func message(for event: TrackingEvent) -> String {
        "id: \(event.sequence)\nevent: \(event.erased ? "erased" : event.kind.rawValue)\ndata: \(String(decoding: EventJSON.bytes(event), as: UTF8.self))\n\n"
    }
}
