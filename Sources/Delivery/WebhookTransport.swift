import Timeline

/// A request to a receiver, sent to the address the ``OutboundGuard`` checked.
public struct WebhookRequest: Sendable {
    public var url: WebhookURL
    /// The checked address to connect to: the host is not looked up again.
    public var address: IPAddress
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The whole exchange (connect, send, the answer's head and body) must end within this.
    public var timeout: Duration

    public init(url: WebhookURL, address: IPAddress, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) {
        self.url = url
        self.address = address
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What came back: a status, or why none came.
public struct WebhookResponse: Hashable, Sendable {
    /// The receiver's status code; nil when no answer came.
    public var statusCode: Int?
    /// The receiver's `Retry-After`, when it sent one.
    public var retryAfter: Duration?
    /// Why it failed: no answer came (refused, timed out, refused by the guard), or, as
    /// ``WebhookSender`` completes it, the status was not 2xx; nil when acknowledged.
    public var error: String?
    /// From sending to the end of the answer or the failure.
    public var latency: Duration

    /// 2xx: the receiver has the message.
    public var acknowledged: Bool { statusCode.map { (200..<300).contains($0) } ?? false }
    /// 410 Gone: the receiver wants no more.
    public var gone: Bool { statusCode == 410 }
    /// ``latency`` in milliseconds.
    public var latencyMilliseconds: Double { latency.milliseconds }

    public init(statusCode: Int?, retryAfter: Duration? = nil, error: String? = nil, latency: Duration) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.error = error
        self.latency = latency
    }
}

/// Sends webhook requests. The real one is DeliveryHTTP's `HTTPWebhookTransport`; tests inject others only
/// for failures a real receiver cannot stage.
public protocol WebhookTransport: Sendable {
    /// How receivers' host names are looked up (the ``OutboundGuard`` checks what it answers).
    var resolver: HostResolver { get }
    /// Posts `request`, ending within `request.timeout`; never throws: a failure (the timeout
    /// included) is a response without a status.
    func post(_ request: WebhookRequest) async -> WebhookResponse
    /// Closes connections.
    func shutdown() async
}
