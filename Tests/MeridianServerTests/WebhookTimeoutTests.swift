import Delivery
import DeliveryHTTP
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Synchronization
import Testing
import TestSupport

/// `--webhook-timeout` bounds a whole attempt, the answer's body included: a receiver that
/// answers 200 and then trickles its body holds neither the test ping, nor its worker, nor
/// shutdown past the timeout.
///
/// Two measures of "cut off at the timeout": the bytes the receiver wrote before the client hung
/// up (its own steps, so as exact on a loaded machine as on an idle one), and wall time with slack.
@Suite(.watchdog) struct WebhookTimeoutTests {
    /// The receiver's pace: a byte every 250 ms, after 200 and `Content-Length: 100000`.
    static let interval = Duration.milliseconds(250)
    /// Never idle as long as the timeout, so only a bound on the whole attempt ends it.
    static let trickling = WebhookReceiver.Answer(trickle: interval)
    /// The timeout the tests set: short beside the trickle, long enough for a loaded machine.
    static let timeout = Duration.seconds(3)
    /// Most bytes a receiver writes before a client that keeps the timeout hangs up: the timeout's
    /// worth (4; 5 are seen) and a few for the hang-up to reach it. The old behaviour let the whole
    /// trickle run (480).
    static let bytesWithinTimeout = Int(timeout / interval) + 4
    /// What a loaded 2-core machine adds to wall time: with the whole suite at once, 1 s timers
    /// were seen to fire up to 30 s late. Still far below the receiver's 120 s trickle (the old behaviour).
    static let slack = Duration.seconds(40)

    /// The bytes each trickled answer wrote, once `count` of them have ended (at most 20 s on).
    static func trickled(_ receiver: WebhookReceiver, count: Int) async throws -> [Int] {
        try await eventually { receiver.trickled.count >= count ? receiver.trickled : nil } ?? []
    }

    /// Whether `error` says the attempt ran out of time (the whole attempt's bound, or
    /// AsyncHTTPClient's read timeout when a loaded machine delays the receiver's bytes).
    static func timedOut(_ error: String?) -> Bool {
        error?.lowercased().contains("timeout") == true
    }

    @Test func theTransportEndsAnAttemptAtItsTimeoutWhateverTheBodyDoes() async throws {
        try await WebhookReceiver.run(script: { _, _ in Self.trickling }) { receiver in
            let transport = HTTPWebhookTransport()
            let request = WebhookRequest(url: try WebhookURL(receiver.url), address: try #require(IPAddress("127.0.0.1")),
                                         headers: [("content-type", "application/json")], body: Array("{}".utf8), timeout: Self.timeout)
            let response = await transport.post(request)
            #expect(response.statusCode == nil && !response.acknowledged && Self.timedOut(response.error), "\(response)")
            #expect(response.latency >= Self.timeout && response.latency < Self.timeout + Self.slack, "\(response.latency)")
            #expect(receiver.received.count == 1)
            let sent = try await Self.trickled(receiver, count: 1)
            #expect(sent.count == 1 && sent.allSatisfy { $0 <= Self.bytesWithinTimeout }, "\(sent)")
            await transport.shutdown()
        }
    }

    @Test func theTestPingAnswersWithinTheTimeoutAndReportsTheTimedOutAttempt() async throws {
        try await WebhookReceiver.run(script: { _, _ in Self.trickling }) { receiver in
            try await WebhookApp.withLiveClient(configure: { $0.delivery.timeout = Self.timeout }) { client in
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                let start = ContinuousClock.now
                let response = try await client.send(.post, "/v1/webhooks/\(webhook.id)/test")
                let took = ContinuousClock.now - start
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let ping = try response.decode(WebhookContractTests.WirePing.self)
                #expect(!ping.delivered && ping.statusCode == nil && Self.timedOut(ping.error), "\(ping)")
                #expect(took < Self.timeout + Self.slack, "the ping took \(took)")
                let sent = try await Self.trickled(receiver, count: 1)
                #expect(sent.count == 1 && sent.allSatisfy { $0 <= Self.bytesWithinTimeout }, "\(sent)")
            }
        }
    }

    @Test func aTricklingAnswerIsAFailedAttemptRetriedPerTheBackoff() async throws {
        try await WebhookReceiver.run(script: { index, _ in index == 0 ? Self.trickling : .init() }) { receiver in
            try await WebhookApp.withLiveClient(configure: { $0.delivery.timeout = Self.timeout }) { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<2)
                let got = try await receiver.wait { $0.count >= 3 }
                try #require(got.compactMap(\.sequence) == [1, 1, 2])
                let sent = try await Self.trickled(receiver, count: 1)
                #expect(sent.count == 1 && sent.allSatisfy { $0 <= Self.bytesWithinTimeout }, "\(sent)")
                // Cut off at the timeout, then retried after the schedule's 20 ms.
                let gap = got[1].at - got[0].at
                #expect(gap < Self.timeout + Self.slack, "the retry came \(gap) after the first attempt")
                // The trickled attempt failed (on a loaded machine another attempt may have too: the
                // whole suite at once has made an ordinary answer take more than a second).
                let failed = try await client.deliveries(webhook.id, status: "failed").filter { $0.sequence == 1 }
                #expect(failed.count == 1 && failed.first?.statusCode == nil && Self.timedOut(failed.first?.error), "\(failed)")
                let latency = Duration.milliseconds(failed.first?.latencyMilliseconds ?? 0)
                #expect(latency >= Self.timeout && latency < Self.timeout + Self.slack, "the failed attempt took \(latency)")
                let delivered = try await eventually { () async throws -> [Int64]? in
                    let sequences = try await client.deliveries(webhook.id, status: "delivered").map(\.sequence)
                    return sequences.count == 2 ? sequences : nil
                }
                #expect(delivered?.contains(1) == true && delivered?.contains(2) == true, "\(delivered ?? [])")
            }
        }
    }

    /// SIGTERM's path (`TenantSpace.stopDelivering`, then `DeliveryHub.stop`) with an attempt in
    /// flight: it lets the attempt end, which the timeout bounds.
    @Test func shutdownWaitsOnATricklingReceiverNoLongerThanTheTimeout() async throws {
        try await WebhookReceiver.run(script: { _, _ in Self.trickling }) { receiver in
            let stopping = Mutex<ContinuousClock.Instant?>(nil)
            try await WebhookApp.withLiveClient(configure: { $0.delivery.timeout = Self.timeout }) { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                _ = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<1)
                try await receiver.wait { !$0.isEmpty }
                stopping.withLock { $0 = .now }
            }
            let began = try #require(stopping.withLock { $0 })
            let took = ContinuousClock.now - began
            #expect(took < Self.timeout + Self.slack, "shutdown took \(took)")
            // Every attempt, the one in flight at shutdown included, was cut off at the timeout.
            let sent = try await Self.trickled(receiver, count: receiver.received.count)
            #expect(!sent.isEmpty && sent.allSatisfy { $0 <= Self.bytesWithinTimeout }, "\(sent)")
        }
    }
}
