public import Timeline

/// One signed request to a webhook's URL, answering what came of it (a ``WebhookResponse``): the URL checked by the SSRF guard (resolved, every
/// address checked, then sent to the checked address), signed per Standard Webhooks.
public struct WebhookSender: Sendable {
    let context: DeliveryContext
    /// The `User-Agent` of every request.
    static let userAgent = "Meridian-Webhooks/1"

    public init(context: DeliveryContext) {
        self.context = context
    }

    /// Sends `body` as message `id` to `url`, signed with `secrets` at `at`.
    public func send(id: String, body: [UInt8], to url: String, secrets: [WebhookSecret], at: Instant) async -> WebhookResponse {
        let target: WebhookURL
        let address: IPAddress
        do {
            target = try WebhookURL(url)
            address = try await context.outbound.check(target)
        } catch {
            return WebhookResponse(statusCode: nil, error: "not sent: \(error)", latency: .zero)
        }
        let timestamp = at.microseconds / 1_000_000
        let request = WebhookRequest(url: target, address: address, headers: [
            ("content-type", "application/json"),
            ("user-agent", Self.userAgent),
            ("webhook-id", id),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.header(id: id, timestamp: timestamp, body: body, secrets: secrets)),
        ], body: body, timeout: context.settings.timeout)
        var response = await context.transport.post(request)
        if response.error == nil, !response.acknowledged, let status = response.statusCode { response.error = "the receiver answered \(status)" }
        return response
    }
}
