import Delivery
import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing

/// A webhook as a client reads it off the wire.
public struct WireWebhook: Decodable, Sendable {
    public struct Lag: Decodable, Sendable { public var events: Int64; public var oldestAge: Double? }
    public var id: String
    public var url: String
    public var subscriptionIds: [String]?
    public var secret: String?
    public var state: String
    public var disabledReason: String?
    public var cursor: Int64
    public var lag: Lag
    public var previousSecretExpiresAt: String?
    public var createdAt: String
    public var updatedAt: String
}

public struct WireDeliveryPage: Decodable, Sendable {
    public struct Attempt: Decodable, Sendable {
        public var id: Int64; public var sequence: Int64; public var eventId: String; public var attempt: Int; public var statusCode: Int?; public var error: String?; public var status: String
        public var latencyMilliseconds: Double
    }
    public var deliveries: [Attempt]
    public var nextCursor: String?
}

public enum WebhookApp {
    /// Tests' schedule: three quick retries.
    public static let quickBackoff = BackoffSchedule(delays: [.milliseconds(20), .milliseconds(20), .milliseconds(20)])

    /// A live server (in-memory database) whose webhooks may reach loopback, with `configure` applied.
    public static func withLiveClient(
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
    public func createWebhook(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireWebhook {
        let response = try await send(.post, "/v1/webhooks", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireWebhook.self)
    }

    public func webhook(_ id: String) async throws -> WireWebhook {
        try await send(.get, "/v1/webhooks/\(id)").decode(WireWebhook.self)
    }

    public func deliveries(_ id: String, status: String? = nil) async throws -> [WireDeliveryPage.Attempt] {
        try await send(.get, "/v1/webhooks/\(id)/deliveries?limit=1000" + (status.map { "&status=\($0)" } ?? "")).decode(WireDeliveryPage.self).deliveries
    }

    /// Posts one fix per device `first..<first+count` (each an `initial` event of an every-fix subscription).
    public func postDevices(_ range: Range<Int>) async throws {
        for index in range { _ = try await postFixes("car-\(index)", [Trace.fix(Trace.at(Double(index)), Double(index))]) }
    }
}

extension String {
    /// `"{...}"` as a JSON object, for comparing bodies whatever their spacing and key order.
    public var jsonObject: NSDictionary? { (try? JSONSerialization.jsonObject(with: Data(utf8))) as? NSDictionary }
}

/// `probe`'s first non-nil answer, polling every 20 ms for at most `timeout`; nil (and an issue) when none came.
public func eventually<T>(timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation, _ probe: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try await probe() { return value }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("nothing came within \(timeout)", sourceLocation: sourceLocation)
    return nil
}
