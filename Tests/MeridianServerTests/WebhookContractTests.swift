import Access
import Delivery
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Synchronization
import Testing
import TestSupport

/// `/v1/webhooks`: the resource, its secret, its validation and the SSRF guard at creation.
@Suite(.watchdog) struct WebhookContractTests {
    @Test func createShowsTheSecretOnceAndReadsShowCursorStateAndLag() async throws {
        try await WebhookApp.withLiveClient { client in
            let created = try await client.createWebhook(#"{"url":"http://127.0.0.1:9/hook"}"#)
            let secret = try #require(created.secret)
            #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
            #expect(created.state == "active" && created.cursor == 0 && created.lag.events == 0 && created.subscriptionIds == nil)

            let read = try await client.webhook(created.id)
            #expect(read.secret == nil && read.url == "http://127.0.0.1:9/hook")
            let page = try await client.send(.get, "/v1/webhooks").decode(WirePage.self)
            #expect(page.webhooks.map(\.id) == [created.id] && page.webhooks[0].secret == nil)

            let given = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
            let second = try await client.createWebhook(#"{"url":"http://127.0.0.1:9/b","secret":"\#(given)"}"#)
            #expect(second.secret == given)
            let first = try await client.send(.get, "/v1/webhooks?limit=1").decode(WirePage.self)
            #expect(first.webhooks.map(\.id) == [created.id] && first.nextCursor == created.id)

            let patched = try await client.send(.patch, "/v1/webhooks/\(created.id)", json: #"{"url":"http://127.0.0.1:10/x","state":"disabled"}"#,
                                                headers: [.contentType: "application/merge-patch+json"]).decode(WireWebhook.self)
            #expect(patched.url == "http://127.0.0.1:10/x" && patched.state == "disabled" && patched.disabledReason != nil && patched.secret == nil)
            // Plain JSON is a merge patch too, as for annotations and subscriptions.
            let resumed = try await client.send(.patch, "/v1/webhooks/\(created.id)", json: #"{"state":"active","subscriptionIds":null}"#,
                                                headers: [.contentType: "application/json"]).decode(WireWebhook.self)
            #expect(resumed.state == "active" && resumed.url == "http://127.0.0.1:10/x" && resumed.subscriptionIds == nil)

            #expect(try await client.send(.delete, "/v1/webhooks/\(created.id)").status == .noContent)
            _ = try await client.send(.get, "/v1/webhooks/\(created.id)").problem(.notFound)
            _ = try await client.send(.delete, "/v1/webhooks/\(created.id)").problem(.notFound)
            _ = try await client.send(.post, "/v1/webhooks/\(created.id)/test").problem(.notFound)
            _ = try await client.send(.get, "/v1/webhooks/\(created.id)/deliveries").problem(.notFound)
        }
    }

    @Test func invalidSecretsAndUnknownSubscriptionsPointAtTheField() async throws {
        try await WebhookApp.withLiveClient { client in
            let short = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/","secret":"whsec_c2hvcnQ="}"#).problem(.unprocessableContent)
            #expect(short.pointers == ["/secret"])
            let sub = try await client.subscribe(TrackingContractTests.everyFix)
            let unknown = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/","subscriptionIds":["\#(sub.id)","nope"]}"#)
                .problem(.unprocessableContent)
            #expect(unknown.pointers == ["/subscriptionIds/1"])
            let missing = try await client.send(.post, "/v1/webhooks", json: #"{"secret":"x"}"#).problem(.badRequest)
            #expect(missing.pointers == ["/url"])
            let one = try await client.createWebhook(#"{"url":"http://127.0.0.1:9/","subscriptionIds":["\#(sub.id)"]}"#)
            #expect(one.subscriptionIds == [sub.id])
            let all = try await client.send(.patch, "/v1/webhooks/\(one.id)", json: #"{"subscriptionIds":null}"#,
                                            headers: [.contentType: "application/merge-patch+json"]).decode(WireWebhook.self)
            #expect(all.subscriptionIds == nil)
        }
    }

    /// Without an allowlist, every address a webhook must not reach is refused when it is created.
    @Test(arguments: [
        "http://127.0.0.1/", "http://10.0.0.1/", "http://100.64.0.1/", "http://169.254.169.254/latest/meta-data", "http://[::1]/",
        "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://0.0.0.0/", "http://localhost:8080/", "file:///etc/passwd",
        "gopher://127.0.0.1:70/", "http://192.168.1.1/", "http://[fd00::1]/", "http://2130706433/",
        "http://[::ffff:0:7f00:1]/", "http://[::ffff:0:a9fe:a9fe]/latest/meta-data",
    ])
    func theGuardRefusesPrivateAndLoopbackAddressesAndOtherSchemes(url: String) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.post, "/v1/webhooks", json: #"{"url":"\#(url)"}"#).problem(.unprocessableContent)
            #expect(problem.pointers == ["/url"], "\(problem)")
            #expect(try await client.send(.get, "/v1/webhooks").decode(WirePage.self).webhooks.isEmpty)
        }
    }

    /// A webhook made while its range was allowed is checked again at every send: after a restart
    /// without the allowlist nothing reaches the receiver, and the attempts say why.
    @Test func theGuardChecksAgainAtEverySend() async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        let made = Mutex("")
        try await WebhookReceiver.run { receiver in
            try await WebhookApp.withLiveClient(configure: { $0.databasePath = file.path }) { client in
                _ = try await client.subscribe(TrackingContractTests.everyFix)
                let id = try await client.createWebhook(#"{"url":"\#(receiver.url)"}"#).id
                made.withLock { $0 = id }
            }
            let id = made.withLock { $0 }
            try await WebhookApp.withLiveClient(configure: { $0.databasePath = file.path; $0.delivery.allowed = [] }) { client in
                try await client.postDevices(0..<1)
                let failed = try await eventually { try await client.deliveries(id, status: "failed").first }
                #expect(failed?.statusCode == nil && failed?.error?.contains("loopback") == true, "\(String(describing: failed))")
                let ping = try await client.send(.post, "/v1/webhooks/\(id)/test").decode(WirePing.self)
                #expect(!ping.delivered && ping.error?.contains("loopback") == true)
            }
            #expect(receiver.received.isEmpty)
        }
    }

    /// A webhook belongs to its tenant: another tenant's key finds no such id (404, never 403),
    /// and reads need no more than a reader's key while changes need an admin's.
    @Test func webhooksAreConfinedToTheirTenantAndChangedByAdminsOnly() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin), ("acme", .reader), ("globex", .admin)], configure: { $0.delivery.allowed = [CIDR("127.0.0.0/8")!] }) { client, tokens, _ in
            let created = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/"}"#, key: tokens["acme/admin"])
            #expect(created.status == .created)
            let id = try created.decode(WireWebhook.self).id
            #expect(try await client.send(.get, "/v1/webhooks/\(id)", key: tokens["acme/reader"]).status == .ok)
            _ = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/"}"#, key: tokens["acme/reader"]).problem(.forbidden)
            _ = try await client.send(.post, "/v1/webhooks/\(id)/replay", json: #"{"fromSequence":1}"#, key: tokens["acme/reader"]).problem(.forbidden)
            _ = try await client.send(.get, "/v1/webhooks/\(id)", key: tokens["globex/admin"]).problem(.notFound)
            _ = try await client.send(.delete, "/v1/webhooks/\(id)", key: tokens["globex/admin"]).problem(.notFound)
            #expect(try await client.send(.get, "/v1/webhooks", key: tokens["globex/admin"]).decode(WirePage.self).webhooks.isEmpty)
        }
    }

    /// A tenant has at most 100 webhooks (the number the contract and the README give): one more
    /// is 409 problem+json and stores nothing, creations at once cannot pass the cap together, and
    /// deleting one makes room.
    @Test func aTenantHasAtMostAHundredWebhooks() async throws {
        let cap = 100
        try await WebhookApp.withLiveClient { client in
            var ids: [String] = []
            for index in 0..<(cap - 5) { ids.append(try await client.createWebhook(#"{"url":"http://127.0.0.1:9/\#(index)"}"#).id) }
            let racing = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<10 { group.addTask { try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/r\#(index)"}"#).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(racing.filter { $0 == .created }.count == 5 && racing.filter { $0 == .conflict }.count == 5, "\(racing)")
            let problem = try await client.send(.post, "/v1/webhooks", json: #"{"url":"http://127.0.0.1:9/over"}"#).problem(.conflict)
            #expect(problem.detail?.contains("\(cap) webhooks") == true, "\(problem)")
            let listed = try await client.send(.get, "/v1/webhooks?limit=1000").decode(WirePage.self).webhooks
            #expect(listed.count == cap && !listed.contains { $0.url.hasSuffix("/over") })
            #expect(try await client.send(.delete, "/v1/webhooks/\(ids[0])").status == .noContent)
            _ = try await client.createWebhook(#"{"url":"http://127.0.0.1:9/again"}"#)
        }
    }

    struct WirePing: Decodable { var delivered: Bool; var statusCode: Int?; var error: String? }
    struct WirePage: Decodable { var webhooks: [WireWebhook]; var nextCursor: String? }
}
