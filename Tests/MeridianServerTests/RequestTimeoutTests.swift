import Delivery
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `requestTimeout`: a request still unanswered after it answers 503 problem+json with
/// `Retry-After`, and its handler is stopped; the requests after it answer as usual.
@Suite(.watchdog) struct RequestTimeoutTests {
    /// Short beside the receiver's 120 s trickle, long beside an ordinary answer on a loaded
    /// machine (this limit holds for every request of the test, the webhook's creation too).
    static let limit = Duration.seconds(15)

    @Test func aRequestPastTheLimitIs503ProblemJSONAndItsHandlerIsStopped() async throws {
        // A test ping to a receiver that trickles its answer for 120 s, which the delivery timeout allows.
        try await WebhookReceiver.run(script: { _, _ in WebhookTimeoutTests.trickling }) { receiver in
            try await WebhookApp.withLiveClient(configure: { $0.delivery.timeout = .seconds(300); $0.requestTimeout = Self.limit }) { client in
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                let response = try await client.send(.post, "/v1/webhooks/\(webhook.id)/test")
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect(response.headers[.retryAfter] == "1")
                #expect(String(buffer: response.body).contains("longer than the server's limit of"), "\(String(buffer: response.body))")
                // Stopped: the ping's client hung up on the receiver long before its trickle's end (480 bytes).
                let sent = try await WebhookTimeoutTests.trickled(receiver, count: 1)
                #expect(sent.count == 1 && sent.allSatisfy { $0 < 480 }, "\(sent)")
                let next = try await client.send(.get, "/v1/webhooks/\(webhook.id)")
                #expect(next.status == .ok)
            }
        }
    }
}
