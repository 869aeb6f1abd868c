import Foundation
import OpenAPIRuntime

/// The tenant's events as they are committed (`GET /v1/events/stream`, Server-Sent Events), followed
/// across dropped connections: when the stream ends (the connection dropped, the server shut down
/// gracefully with `event: shutdown`, a deadline cut it) it is opened again with `Last-Event-ID`
/// set to the last event received, so no event is missed and none comes twice. Reconnections wait
/// as the ``RetryPolicy`` says (honouring `Retry-After` on a 429 or 503, and the stream's own
/// `retry:` field); its attempts count failed connections in a row. An answer that retrying cannot
/// mend (401, 403, 404, 422…) ends the loop with a ``MeridianError``, and so does an event that
/// does not decode; when the policy gives up, a stream that ended ends the sequence and a failure
/// is thrown (``RetryPolicy/never`` reads one connection's events). What remains of an event whose
/// device was erased (`{"sequence": n, "erased": true}`) carries nothing to show: the feed passes
/// over it (and resumes after it).
///
/// ```swift
/// for try await event in meridian.events(after: lastSeen) {
///     lastSeen = event.sequence          // keep it to resume after a relaunch
///     show(event)
/// }
/// ```
public struct EventFeed: AsyncSequence, Sendable {
    public typealias Element = Components.Schemas.Event

    let api: Client
    /// Start after this sequence; nil for only events committed from now on.
    let after: Int64?
    /// Only this subscription's events.
    let subscriptionID: String?
    /// Waits between reconnections; its attempts count failed connections in a row.
    let retry: RetryPolicy

    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self, lastEventID: after.map(String.init))
    }

    /// Reads one connection's events and opens the next one when it ends.
    public struct Iterator: AsyncIteratorProtocol {
        typealias Messages = ServerSentEventsDeserializationSequence<ServerSentEventsLineDeserializationSequence<HTTPBody>>

        let feed: EventFeed
        /// The `id` of the last event received: where the next connection resumes.
        var lastEventID: String?
        /// The open connection's messages; nil between connections.
        var messages: Messages.AsyncIterator?
        /// Reconnections since the last connection that was answered.
        var reconnections = 0
        /// The stream's `retry:` field: the server's wait before reconnecting, in milliseconds.
        var serverRetry: Int64?

        public mutating func next() async throws -> Components.Schemas.Event? {
            while true {
                do {
                    if messages == nil {
                        messages = try await connect().makeAsyncIterator()
                        reconnections = 0
                    }
                    guard let message = try await messages?.next(), message.event != "shutdown" else {
                        guard try await reconnect(retryAfter: nil) else { return nil }
                        continue
                    }
                    if let retry = message.retry { serverRetry = retry }
                    // A heartbeat (a comment) arrives as a message without data.
                    guard let data = message.data else { continue }
                    switch try JSONDecoder().decode(Components.Schemas.LoggedEvent.self, from: Data(data.utf8)) {
                    case .Event(let event):
                        lastEventID = message.id ?? String(event.sequence)
                        return event
                    case .ErasedEvent(let stub):
                        lastEventID = message.id ?? String(stub.sequence)
                    }
                } catch let error as MeridianError where RetryPolicy.retriedStatuses.contains(error.status) {
                    guard try await reconnect(retryAfter: error.retryAfter) else { throw error }
                } catch let error as MeridianError {
                    throw error
                } catch let error as DecodingError {
                    throw error
                } catch {
                    // The connection could not be made or dropped; a cancelled task stops here.
                    try Task.checkCancellation()
                    guard try await reconnect(retryAfter: nil) else { throw error }
                }
            }
        }

        /// Opens a connection that resumes after ``lastEventID``.
        func connect() async throws -> Messages {
            let output = try await feed.api.streamEvents(
                query: .init(subscriptionId: feed.subscriptionID), headers: .init(lastEventID: lastEventID)
            )
            guard case .ok(let ok) = output else { throw MeridianError(answer: output) }
            return try ok.body.textEventStream.asDecodedServerSentEvents()
        }

        /// Drops the connection and waits before the next; false when the policy gives up.
        /// - Parameter retryAfter: the server's `Retry-After`, in seconds.
        mutating func reconnect(retryAfter: Int?) async throws -> Bool {
            messages = nil
            reconnections += 1
            let asked = retryAfter ?? serverRetry.map { Int(($0 + 999) / 1000) }
            guard let wait = feed.retry.delay(afterAttempt: reconnections, retryAfter: asked) else { return false }
            try await Task.sleep(for: wait)
            return true
        }
    }
}

extension Meridian {
    /// The tenant's events from the one after `after` (0 replays the whole log; nil starts with
    /// the next one committed), as they are committed, resuming across dropped connections (see
    /// ``EventFeed``).
    /// - Parameters:
    ///   - subscriptionID: only this subscription's events.
    ///   - retry: waits between reconnections; by default it never gives up, waiting up to 30 s.
    public func events(
        after: Int64? = nil, subscriptionID: String? = nil,
        retry: RetryPolicy = RetryPolicy(maxAttempts: .max, initialDelay: .seconds(1), maxDelay: .seconds(30))
    ) -> EventFeed {
        EventFeed(api: api, after: after, subscriptionID: subscriptionID, retry: retry)
    }
}
