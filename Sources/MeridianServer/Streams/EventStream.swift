import Annotations
import Foundation
import MeridianAPI
import OpenAPIRuntime
import ServiceLifecycle
import Tracking

/// Server-Sent Events of the event log: `id: <sequence>`, `event: <type>`, `data: <Event JSON>`,
/// a `: heartbeat` comment when nothing happened for `heartbeat`, resumable with `Last-Event-ID`.
struct EventStream {
    let hub: TrackingHub
    let heartbeat: Duration
    /// Events read from the log per query.
    static let pageSize = 500

    /// The stream after `sequence`, of one subscription or of all; it ends when the client goes
    /// away or the server shuts down gracefully.
    func body(after sequence: Int64, subscriptionId: String?) -> HTTPBody {
        let (stream, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let task = Task { [hub, heartbeat] in
            await cancelWhenGracefulShutdown {
                var cursor = sequence
                var scanned = sequence
                continuation.yield(ArraySlice("retry: 1000\n\n".utf8))
                while !Task.isCancelled {
                    let latest = hub.feed.latest
                    guard let events = try? await hub.tracker.store.events(subscriptionId: subscriptionId, after: cursor, limit: Self.pageSize) else { break }
                    for event in events {
                        continuation.yield(ArraySlice(Self.message(for: event).utf8))
                        cursor = event.sequence
                    }
                    if events.count == Self.pageSize { continue }
                    scanned = max(scanned, latest, cursor)
                    await hub.feed.wait(after: scanned, timeout: heartbeat)
                    if hub.feed.latest <= scanned && !Task.isCancelled { continuation.yield(ArraySlice(": heartbeat\n\n".utf8)) }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return HTTPBody(stream, length: .unknown, iterationBehavior: .single)
    }

    /// One SSE message; the JSON is one line, as `data:` needs.
    static func message(for event: TrackingEvent) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Components.Schemas.Event(event))) ?? Data("{}".utf8)
        return "id: \(event.sequence)\nevent: \(event.kind.rawValue)\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
    }
}
