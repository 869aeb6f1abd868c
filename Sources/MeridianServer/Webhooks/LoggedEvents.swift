import MeridianHTTP
import Delivery
import Foundation
import MeridianAPI
import Storage
import Timeline
import Tracking
import WireJSON

/// A tenant's event log as delivery reads it: the same rows, the same JSON, the same wake-ups as
/// the SSE stream.
struct LoggedEvents: EventSource {
    let hub: TrackingHub
    let store: any EventLogReader

    var latest: Int64 { hub.feed.latest }

    func events(after sequence: Int64, subscriptionIds: [String]?, limit: Int) async throws -> [OutboundEvent] {
        try await store.events(after: sequence, subscriptionIds: subscriptionIds, limit: limit).map { event in
            OutboundEvent(sequence: event.sequence, id: event.id, subscriptionId: event.subscriptionId, recordedAt: event.recordedAt, body: EventJSON.bytes(event))
        }
    }

    func count(after sequence: Int64, subscriptionIds: [String]?) async throws -> Int64 {
        try await store.eventCount(after: sequence, subscriptionIds: subscriptionIds)
    }

    func wait(after sequence: Int64, timeout: Duration) async {
        await hub.feed.wait(after: sequence, timeout: timeout)
    }
}

/// An event's JSON as the event log lists it (`Event` in the contract): one line, keys sorted,
/// by the writer the ingest answer uses (held to the generated encoder byte for byte by
/// `IngestFastPathTests`). SSE `data:` and webhook bodies are both this.
enum EventJSON {
    static func bytes(_ event: TrackingEvent) -> [UInt8] {
        var json = JSONWriter(capacity: 640)
        TrackingJSON.write(event, to: &json)
        return json.bytes
    }
}
