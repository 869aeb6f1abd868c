import Access
import Delivery
import HummingbirdTesting
import Foundation
import MeridianClient
import MeridianServer
import OpenAPIRuntime
import TestSupport
import Testing

/// The tracking flows through the generated client over real HTTP: fixes sent with retries, events
/// read by long poll and followed on the stream across its ends, webhooks created, read, changed
/// and deleted.
@Suite(.watchdog) struct ClientTrackingTests {
    /// A subscription that reports every fix of every device.
    static let everyFix = Components.Schemas.SubscriptionInput.significantChange(
        .init(_type: .significantChange, distanceFilter: 0, minimumInterval: 0))

    /// `count` fixes a second apart, walking north from Portland's centre, the last one now.
    static func walk(_ count: Int, endingAt end: Date = Date()) -> [Components.Schemas.Fix] {
        (0..<count).map { step in
            Components.Schemas.Fix(
                latitude: 45.52 + Double(step) * 0.001, longitude: -122.68,
                at: end.addingTimeInterval(Double(step - count + 1)), horizontalAccuracy: 5)
        }
    }

    @Test func fixesAreRetriedAfterTheRateLimitAndResentAsDuplicates() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin)], setup: .live, configure: { configuration in
            // One request per 4 s: the third request must come before the next token, also on a
            // loaded machine (at 1 per second a slow retry let a token in).
            configuration.rateLimit = 0.25
            configuration.rateBurst = 1
        }) { client, tokens, _ in
            let counter = RequestCounter()
            let meridian = Meridian(serverURL: try LiveServer.url(client), apiKey: tokens["acme/admin"], middlewares: [counter])
            let fixes = Self.walk(3)
            let first = try await meridian.send(fixes, forDevice: "van-1")
            #expect(first.results.map(\.status) == [.accepted, .accepted, .accepted])

            // The bucket is empty: the server answers 429 with Retry-After, the client waits it out.
            let started = ContinuousClock.now
            let again = try await meridian.send(fixes, forDevice: "van-1")
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            #expect(counter.count("postLocations") == 3)
            #expect(again.results.map(\.status) == [.duplicate, .duplicate, .duplicate])

            // Without retries the 429 is the caller's, with the server's problem and wait.
            do {
                _ = try await meridian.send(fixes, forDevice: "van-1", retry: .never)
                Issue.record("a request before the next token was not refused")
            } catch let error as MeridianError {
                #expect(error.status == 429)
                #expect((error.retryAfter ?? 0) >= 1)
                #expect(error.problem?.status == 429)
            }
        }
    }

    @Test func eventsAreReadByLongPoll() async throws {
        try await LiveServer.withClient { meridian in
            _ = try await meridian.api.createSubscription(body: .json(Self.everyFix)).created
            let waiting = Task {
                try await meridian.api.listEvents(query: .init(after: 0, wait: 20)).ok.body.json
            }
            try await Task.sleep(for: .milliseconds(200))
            _ = try await meridian.send(Self.walk(1), forDevice: "van-1")
            let page = try await waiting.value
            #expect(page.events.map(\.sequence) == [1])
            #expect(page.events.first?.event?._type == .initial)
            #expect(page.nextAfter == 1)
        }
    }

    @Test func theStreamIsFollowedAcrossItsEndsWithoutLossOrRepeat() async throws {
        let counter = RequestCounter()
        // Streams end after a second, as a dropped connection would end them.
        try await LiveServer.withClient(configure: { $0.maxWait = .seconds(1) }, middlewares: [counter]) { meridian in
            _ = try await meridian.api.createSubscription(body: .json(Self.everyFix)).created
            let start = Date()
            _ = try await meridian.send(Self.walk(3, endingAt: start), forDevice: "van-1")
            let feeding = Task {
                // The rest arrive while the follower reconnects: three more, in three batches over 2.5 s.
                for step in 1...3 {
                    try await Task.sleep(for: .milliseconds(800))
                    let fix = Components.Schemas.Fix(
                        latitude: 45.53 + Double(step) * 0.001, longitude: -122.68, at: start.addingTimeInterval(Double(step)), horizontalAccuracy: 5)
                    _ = try await meridian.send([fix], forDevice: "van-1")
                }
            }
            var sequences: [Int64] = []
            for try await event in meridian.events(after: 0, retry: RetryPolicy(maxAttempts: 20, initialDelay: .milliseconds(100), maxDelay: .seconds(1))) {
                #expect(event.deviceId == "van-1")
                sequences.append(event.sequence)
                if sequences.count == 6 { break }
            }
            try await feeding.value
            #expect(sequences == [1, 2, 3, 4, 5, 6])
            #expect(counter.count("streamEvents") >= 2, "the stream ended and was opened again")

            // Without retries the feed is one connection: the log so far, then the end when the server ends it.
            var once: [Int64] = []
            for try await event in meridian.events(after: 2, retry: .never) { once.append(event.sequence) }
            #expect(once == [3, 4, 5, 6])
        }
    }

    @Test func webhooksAreCreatedReadChangedAndDeleted() async throws {
        try await LiveServer.withClient(configure: { $0.delivery.allowed = [CIDR("127.0.0.0/8")!] }) { meridian in
            let api = meridian.api
            let created = try await api.createWebhook(body: .json(.init(url: "http://127.0.0.1:9/hooks"))).created.body.json
            #expect(created.secret != nil)
            #expect(try await api.getWebhook(path: .init(webhookId: created.id)).ok.body.json.url == "http://127.0.0.1:9/hooks")
            #expect(try await api.listWebhooks().ok.body.json.webhooks.map(\.id) == [created.id])

            let changed = try await api.updateWebhook(
                path: .init(webhookId: created.id), body: .applicationMergePatchJson(.init(state: .disabled))).ok.body.json
            #expect(changed.state == .disabled)

            _ = try await api.deleteWebhook(path: .init(webhookId: created.id)).noContent
            let gone = MeridianError(answer: try await api.getWebhook(path: .init(webhookId: created.id)))
            #expect(gone.status == 404)
        }
    }
}
