public import Timeline

/// One signed request to a webhook's URL: the URL checked by the SSRF guard (resolved, every
/// address checked, then sent to the checked address), signed per Standard Webhooks.
public struct WebhookSender: Sendable {
    let context: DeliveryContext
    /// The `User-Agent` of every request.
    static let userAgent = "Meridian-Webhooks/1"

    public init(context: DeliveryContext) {
        self.context = context
    }

    /// What came of one send: the receiver's answer, or why there was none.
    public struct Result: Sendable {
        public var statusCode: Int?
        public var retryAfter: Duration?
        /// Why it failed (a refused address, a transport error, or a non-2xx status); nil when acknowledged.
        public var failure: String?
        public var latency: Duration

        /// 2xx.
        public var acknowledged: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
        /// 410 Gone.
        public var gone: Bool { statusCode == 410 }
        /// ``latency`` in milliseconds.
        public var latencyMilliseconds: Double { latency.milliseconds }
    }

    /// Sends `body` as message `id` to `url`, signed with `secrets` at `at`.
    public func send(id: String, body: [UInt8], to url: String, secrets: [WebhookSecret], at: Instant) async -> Result {
        let target: WebhookURL
        let address: IPAddress
        do {
            target = try WebhookURL(url)
            address = try await context.outbound.check(target)
        } catch {
            return Result(statusCode: nil, failure: "not sent: \(error)", latency: .zero)
        }
        let timestamp = at.microseconds / 1_000_000
        let request = WebhookRequest(url: target, address: address, headers: [
            ("content-type", "application/json"),
            ("user-agent", Self.userAgent),
            ("webhook-id", id),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.header(id: id, timestamp: timestamp, body: body, secrets: secrets)),
        ], body: body, timeout: context.settings.timeout)
        let response = await context.transport.post(request)
        let failure = response.error ?? response.statusCode.flatMap { (200..<300).contains($0) ? nil : "the receiver answered \($0)" }
        return Result(statusCode: response.statusCode, retryAfter: response.retryAfter, failure: failure, latency: response.latency)
    }
}
