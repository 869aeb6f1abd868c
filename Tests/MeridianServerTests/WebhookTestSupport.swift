import Delivery
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing

/// A webhook as a client reads it off the wire.
struct WireWebhook: Decodable, Sendable {
    struct Lag: Decodable, Sendable { var events: Int64; var oldestAge: Double? }
    var id: String
    var url: String
    var subscriptionIds: [String]?
    var secret: String?
    var state: String
    var disabledReason: String?
    var cursor: Int64
    var lag: Lag
    var previousSecretExpiresAt: String?
    var createdAt: String
    var updatedAt: String
}

struct WireDeliveryPage: Decodable {
    struct Attempt: Decodable {
        var id: Int64; var sequence: Int64; var eventId: String; var attempt: Int; var statusCode: Int?; var error: String?; var status: String
        var latencyMilliseconds: Double
    }
    var deliveries: [Attempt]
    var nextCursor: String?
}

enum WebhookApp {
    /// Tests' schedule: three quick retries.
    static let quickBackoff = BackoffSchedule(delays: [.milliseconds(20), .milliseconds(20), .milliseconds(20)])

    /// A live server (in-memory database) whose webhooks may reach loopback, with `configure` applied.
    static func withLiveClient(
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = try await TestApp.configuration()
        configuration.delivery = DeliverySettings(backoff: quickBackoff, timeout: .seconds(5), allowed: [CIDR("127.0.0.0/8")!])
        configure(&configuration)
        let app = try await buildApplication(configuration)
        try await app.test(.live, body)
    }
}

extension TestClientProtocol {
    /// Creates a webhook (`json` is the body), expecting 201.
    func createWebhook(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireWebhook {
        let response = try await send(.post, "/v1/webhooks", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireWebhook.self)
    }

    func webhook(_ id: String) async throws -> WireWebhook {
        try await send(.get, "/v1/webhooks/\(id)").decode(WireWebhook.self)
    }

    func deliveries(_ id: String, status: String? = nil) async throws -> [WireDeliveryPage.Attempt] {
        try await send(.get, "/v1/webhooks/\(id)/deliveries?limit=1000" + (status.map { "&status=\($0)" } ?? "")).decode(WireDeliveryPage.self).deliveries
    }

    /// Posts one fix per device `first..<first+count` (each an `initial` event of an every-fix subscription).
    func postDevices(_ range: Range<Int>) async throws {
        for index in range { _ = try await postFixes("car-\(index)", [Trace.fix(Trace.at(Double(index)), Double(index))]) }
    }
}

extension String {
    /// `"{...}"` as a JSON object, for comparing bodies whatever their spacing and key order.
    var jsonObject: NSDictionary? { (try? JSONSerialization.jsonObject(with: Data(utf8))) as? NSDictionary }
}

/// `probe`'s first non-nil answer, polling every 20 ms for at most `timeout`; nil (and an issue) when none came.
func eventually<T>(timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation, _ probe: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("nothing came within \(timeout)", sourceLocation: sourceLocation)
    return nil
}
