import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Deliveries survive `kill -9`: the real binary is killed while it is sending, restarted on the
/// same file, and every event reaches the receiver, in order, none skipped.
@Suite(.watchdog, .sqliteFile) struct WebhookDurabilityTests {
    static let arguments = ["--webhook-allow-cidr", "127.0.0.0/8", "--webhook-backoff", "50ms,50ms"]
    static let events = 60

    @Test func pendingDeliveriesResumeFromTheCommittedCursorAfterSIGKILL() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        // A slow receiver, so the kill lands while events are still being sent.
        try await WebhookReceiver.run(script: { _, _ in .init(delay: .milliseconds(100)) }) { receiver in
            let first = try await ServerProcess.start(database: database.path, arguments: Self.arguments)
            defer { first.kill() }
            let webhookID = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
                let subscription = try await client.execute(.request(.post, "/v1/subscriptions", json: Trace.everyFix))
                #expect(subscription.status == .created)
                let webhook = try await client.execute(.request(.post, "/v1/webhooks", json: #"{"url":"\#(receiver.url)"}"#))
                #expect(webhook.status == .created)
                for device in 0..<Self.events {
                    let fixes = Trace.batch([Trace.fix(Trace.at(Double(device)), Double(device))])
                    #expect(try await client.execute(.request(.post, "/v1/devices/car-\(device)/locations", json: fixes)).status == .ok)
                }
                return try webhook.decode(WireWebhook.self).id
            }
            try await receiver.wait { $0.count >= 10 }
            await first.stop()
            let sentBeforeKill = receiver.received.count
            #expect(sentBeforeKill < Self.events, "the kill came after everything was sent; the test proves nothing")

            let second = try await ServerProcess.start(database: database.path, arguments: Self.arguments)
            defer { second.kill() }
            let got = try await receiver.wait { Set($0.compactMap(\.sequence)).count >= Self.events }
            let sequences = got.compactMap(\.sequence)
            // At least once, in order: each event's first arrival comes after every earlier event's,
            // and only the one in flight at the kill may come twice.
            var firsts: [Int64] = []
            for sequence in sequences where !firsts.contains(sequence) { firsts.append(sequence) }
            #expect(firsts == Array(1...Int64(Self.events)))
            #expect(sequences.count - firsts.count <= 1, "duplicates: \(sequences.count - firsts.count)")
            try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
                let webhook = try await eventually { () async throws -> WireWebhook? in
                    let read = try await client.execute(.request(.get, "/v1/webhooks/\(webhookID)")).decode(WireWebhook.self)
                    return read.cursor == Int64(Self.events) ? read : nil
                }
                #expect(webhook?.lag.events == 0)
            }
        }
    }
}
