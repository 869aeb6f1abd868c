import Delivery
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Webhooks against a real receiver on loopback: order, retries, dead letters, 410, replay,
/// rotation, `Retry-After`, the test ping.
@Suite(.watchdog) struct WebhookDeliveryTests {
    @Test func everyEventArrivesOnceInOrderSignedAndShapedAsTheLogListsIt() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                let secret = try #require(webhook.secret.flatMap(WebhookSecret.init))
                try await client.postDevices(0..<12)
                let got = try await receiver.wait { $0.count >= 12 }
                let log = try await client.send(.get, "/v1/events?after=0&limit=100").decode(WireEventPage.self).events
                #expect(got.compactMap(\.sequence) == Array(1...12) && got.count == 12)
                #expect(got.map(\.webhookID) == log.map(\.id))
                let listed = try JSONSerialization.jsonObject(with: Data(try await client.send(.get, "/v1/events?after=0&limit=100").body.readableBytesView)) as? [String: Any]
                let events = try #require(listed?["events"] as? [NSDictionary])
                for (request, event) in zip(got, events) {
                    #expect(request.body.jsonObject == event)
                    let id = request.webhookID
                    let timestamp = try #require(Int64(request.headers[HTTPField.Name("webhook-timestamp")!] ?? ""))
                    #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 60)
                    #expect(request.headers[HTTPField.Name("webhook-signature")!] == WebhookSignature.sign(id: id, timestamp: timestamp, body: Array(request.body.utf8), secret: secret))
                    #expect(request.headers[.contentType] == "application/json")
                }
                let read = try await eventually { () async throws -> WireWebhook? in
                    let read = try await client.webhook(webhook.id)
                    return read.cursor == 12 ? read : nil
                }
                #expect(read?.lag.events == 0 && read?.lag.oldestAge == nil)
                #expect(try await client.deliveries(webhook.id, status: "delivered").map(\.sequence) == Array((1...12).reversed()))
            }
        }
    }

    /// A fix's attributes reach the receiver as the log writes them, numbers exact (a JSON
    /// round trip through doubles would turn 9007199254740993 into ...992 and 1e-400 into 0).
    @Test func aFixsAttributesRideInTheBodyAsWritten() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                _ = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                let sent = try await client.send(.post, "/v1/devices/van/locations",
                                                 json: Trace.batch([FixAttributesContractTests.fix(0, attributes: FixAttributesContractTests.attributes)]))
                #expect(sent.status == .ok)
                let got = try await receiver.wait { $0.count >= 1 }
                let body = try #require(got.first?.body)
                #expect(body.contains(#""attributes":{"batteryLevel":0.25,"charging":false,"count":9007199254740993,"motion":["driving",null],"sensor":{"t":-3.5},"tiny":1e-400}"#), "\(body)")
                let logged = String(buffer: try await client.send(.get, "/v1/events?after=0&limit=1").body)
                #expect(logged.contains(body), "the webhook's body is the log's event")
            }
        }
    }

    @Test func failuresAreRetriedUntilAcknowledgedWithoutReordering() async throws {
        try await WebhookReceiver.run(script: { index, _ in .init(status: index < 3 ? .internalServerError : .ok) }) { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<5)
                let got = try await receiver.wait { $0.count >= 8 }
                #expect(got.compactMap(\.sequence) == [1, 1, 1, 1, 2, 3, 4, 5])
                #expect(Set(got.prefix(4).map(\.webhookID)).count == 1)
                let failed = try await client.deliveries(webhook.id, status: "failed")
                #expect(failed.map(\.attempt) == [3, 2, 1] && failed.allSatisfy { $0.statusCode == 500 && $0.sequence == 1 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(receiver.received.count == 8)
                let metrics = String(buffer: try await client.send(.get, "/metrics").body)
                #expect(metrics.contains(#"meridian_webhook_deliveries_total{tenant="default",outcome="failed"} 3"#), "\(metrics.suffix(3_000))")
                #expect(metrics.contains(#"meridian_webhook_deliveries_total{tenant="default",outcome="delivered"} 5"#))
                #expect(metrics.contains(#"meridian_webhook_lag_events{tenant="default",webhook="\#(webhook.id)"} 0"#))
                #expect(metrics.contains(#"meridian_webhook_delivery_lag_seconds_count{tenant="default"} 5"#))
                #expect(metrics.contains(#"meridian_webhook_attempt_duration_seconds_count{tenant="default"} 8"#))
            }
        }
    }

    @Test func theLastFailedAttemptDeadLettersTheEventAndDeliveryGoesOn() async throws {
        try await WebhookReceiver.run(script: { _, request in .init(status: request.sequence == 2 ? .badGateway : .ok) }) { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<3)
                let got = try await receiver.wait { $0.compactMap(\.sequence).contains(3) }
                // Four attempts (the first and three retries), then the next event.
                #expect(got.compactMap(\.sequence) == [1, 2, 2, 2, 2, 3])
                let dead = try await client.deliveries(webhook.id, status: "dead")
                #expect(dead.map(\.sequence) == [2] && dead.first?.attempt == 4)
                #expect(try await eventually { try await client.webhook(webhook.id).cursor == 3 ? true : nil } == true)
                // A replay gives the dead-lettered event its whole schedule again, counted from 1.
                _ = try await client.send(.post, "/v1/webhooks/\(webhook.id)/replay", json: #"{"fromSequence":2}"#)
                let again = try await receiver.wait { $0.compactMap(\.sequence).filter { $0 == 3 }.count >= 2 }
                #expect(again.compactMap(\.sequence).dropFirst(6) == [2, 2, 2, 2, 3])
                let deadAgain = try await client.deliveries(webhook.id, status: "dead")
                #expect(deadAgain.map(\.sequence) == [2, 2] && deadAgain.map(\.attempt) == [4, 4])
            }
        }
    }

    @Test func goneDisablesTheWebhookUntilAnOperatorResumesIt() async throws {
        try await WebhookReceiver.run(script: { index, _ in .init(status: index == 0 ? .gone : .ok) }) { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<2)
                let disabled = try await eventually { () async throws -> WireWebhook? in
                    let read = try await client.webhook(webhook.id)
                    return read.state == "disabled" ? read : nil
                }
                #expect(disabled?.disabledReason?.contains("410") == true && disabled?.cursor == 0 && disabled?.lag.events == 2)
                try await Task.sleep(for: .milliseconds(200))
                #expect(receiver.received.count == 1)
                _ = try await client.send(.patch, "/v1/webhooks/\(webhook.id)", json: #"{"state":"active"}"#, headers: [.contentType: "application/merge-patch+json"])
                let got = try await receiver.wait { $0.count >= 3 }
                #expect(got.compactMap(\.sequence) == [1, 1, 2])
            }
        }
    }

    @Test func replayResendsExactlyTheEventsFromTheSequenceOn() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<6)
                try await receiver.wait { $0.count >= 6 }
                let replayed = try await client.send(.post, "/v1/webhooks/\(webhook.id)/replay", json: #"{"fromSequence":4}"#)
                #expect(replayed.status == .accepted)
                #expect(try replayed.decode(WireWebhook.self).cursor == 3)
                let got = try await receiver.wait { $0.count >= 9 }
                #expect(got.compactMap(\.sequence) == [1, 2, 3, 4, 5, 6, 4, 5, 6])
                let beyond = try await client.send(.post, "/v1/webhooks/\(webhook.id)/replay", json: #"{"fromSequence":900}"#).decode(WireWebhook.self)
                #expect(beyond.cursor == 6)
                let zero = try await client.send(.post, "/v1/webhooks/\(webhook.id)/replay", json: #"{"fromSequence":0}"#).problem(.unprocessableContent)
                #expect(zero.pointers == ["/fromSequence"])
                try await Task.sleep(for: .milliseconds(200))
                #expect(receiver.received.count == 9)
            }
        }
    }

    @Test func onlyTheNamedSubscriptionsEventsAreSent() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                let first = try await client.subscribe(TrackingContractTests.everyFix)
                let second = try await client.subscribe(TrackingContractTests.everyFix)
                _ = try await client.createWebhook(#"{"url":"\#(receiver.url)","subscriptionIds":["\#(second.id)"]}"#)
                try await client.postDevices(0..<3)
                let got = try await receiver.wait { $0.count >= 3 }
                let bodies = got.compactMap(\.body.jsonObject)
                #expect(bodies.allSatisfy { $0["subscriptionId"] as? String == second.id } && !bodies.isEmpty)
                #expect(got.compactMap(\.sequence) == [2, 4, 6], "events alternate between \(first.id) and \(second.id)")
            }
        }
    }

    @Test func aRotatedSecretSignsBesideTheNewOneForADay() async throws {
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                let old = try #require(webhook.secret.flatMap(WebhookSecret.init))
                let new = WebhookSecret.generate()
                let rotated = try await client.send(.patch, "/v1/webhooks/\(webhook.id)", json: #"{"secret":"\#(new.text)"}"#,
                                                    headers: [.contentType: "application/merge-patch+json"]).decode(WireWebhook.self)
                let expires = try #require(rotated.previousSecretExpiresAt.flatMap { ISO8601DateFormatter.fractional.date(from: $0) })
                #expect(abs(expires.timeIntervalSinceNow - 86_400) < 60 && rotated.secret == nil)
                try await client.postDevices(0..<1)
                let request = try #require(await (try receiver.wait { !$0.isEmpty }).first)
                let timestamp = try #require(Int64(request.headers[HTTPField.Name("webhook-timestamp")!] ?? ""))
                let body = Array(request.body.utf8)
                let expected = [new, old].map { WebhookSignature.sign(id: request.webhookID, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
                #expect(request.headers[HTTPField.Name("webhook-signature")!] == expected)
            }
        }
    }

    @Test func retryAfterIsWaitedOut() async throws {
        let answer = WebhookReceiver.Answer(status: .serviceUnavailable, headers: [HTTPField.Name("Retry-After")!: "1"])
        try await WebhookReceiver.run(script: { index, _ in index == 0 ? answer : .init() }) { receiver in
            try await WebhookApp.withLiveClient { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                _ = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<1)
                let got = try await receiver.wait { $0.count >= 2 }
                #expect(got[1].at - got[0].at >= .seconds(1), "the schedule's 20 ms would have retried sooner")
            }
        }
    }

    @Test func aReceiverThatHangsTimesOutAndIngestGoesOn() async throws {
        try await WebhookReceiver.run(script: { index, _ in .init(delay: index == 0 ? .seconds(30) : .zero) }) { receiver in
            // 1 s: short beside the hang, long enough for the answers that follow on a loaded machine.
            try await WebhookApp.withLiveClient(configure: { $0.delivery.timeout = .seconds(1) }) { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                try await client.postDevices(0..<3)
                let got = try await receiver.wait { $0.count >= 4 }
                #expect(got.compactMap(\.sequence) == [1, 1, 2, 3])
                let failed = try await client.deliveries(webhook.id, status: "failed")
                #expect(failed.count == 1 && failed[0].statusCode == nil && failed[0].error != nil)
            }
        }
    }

    @Test func theTestPingIsSignedAndReportsWhatTheReceiverDid() async throws {
        try await WebhookReceiver.run(script: { index, _ in .init(status: index == 0 ? .ok : .internalServerError) }) { receiver in
            try await WebhookApp.withLiveClient { client in
                let webhook = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#)
                #expect(receiver.received.isEmpty, "nothing is sent at creation")
                let ok = try await client.send(.post, "/v1/webhooks/\(webhook.id)/test").decode(WebhookContractTests.WirePing.self)
                #expect(ok.delivered && ok.statusCode == 200 && ok.error == nil)
                let ping = try #require(receiver.received.first)
                #expect(ping.body.jsonObject?["type"] as? String == "ping" && ping.webhookID.hasPrefix("ping_"))
                let secret = try #require(webhook.secret.flatMap(WebhookSecret.init))
                let timestamp = try #require(Int64(ping.headers[HTTPField.Name("webhook-timestamp")!] ?? ""))
                #expect(ping.headers[HTTPField.Name("webhook-signature")!] == WebhookSignature.sign(id: ping.webhookID, timestamp: timestamp, body: Array(ping.body.utf8), secret: secret))
                let failing = try await client.send(.post, "/v1/webhooks/\(webhook.id)/test").decode(WebhookContractTests.WirePing.self)
                #expect(!failing.delivered && failing.statusCode == 500)
                #expect(try await client.deliveries(webhook.id).isEmpty, "pings are not logged")
            }
        }
    }
}
