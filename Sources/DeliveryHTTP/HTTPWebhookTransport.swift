import AsyncHTTPClient
public import Delivery
import Timeline
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// ``WebhookTransport`` over AsyncHTTPClient: keep-alive connections per (host, checked address),
/// redirects never followed, the host name mapped to the checked address so nothing resolves it
/// again (TLS still verifies and sends SNI for the name).
public final class HTTPWebhookTransport: WebhookTransport {
    private struct Pin: Hashable { let host: String; let address: IPAddress; let timeout: Duration }
    /// A client, how many requests use it now, and when one last started.
    private struct Entry { let client: HTTPClient; var inFlight = 0; var lastUsed = ContinuousClock.now }
    private let clients = Mutex<[Pin: Entry]>([:])
    /// Most distinct (host, address) pairs kept connected; beyond, the least recently used idle one is closed.
    static let maxClients = 256
    /// The most of an answer's body read (and discarded) to keep the connection reusable.
    static let maxAnswerBytes = 64 << 10

    public let resolver: HostResolver

    /// A transport that looks names up with `resolver` (the system's by default).
    public init(resolver: HostResolver = .system) {
        self.resolver = resolver
    }

    /// Posts `request` and reads the answer's head and body (up to ``maxAnswerBytes``), all within
    /// `request.timeout`: a receiver that connects, answers or sends its body slowly is cut off at
    /// the timeout (its connection closed) and the attempt fails without a status.
    public func post(_ request: WebhookRequest) async -> WebhookResponse {
        let start = ContinuousClock.now
        var outbound = HTTPClientRequest(url: Self.canonical(request.url))
        outbound.method = .POST
        for header in request.headers { outbound.headers.add(name: header.name, value: header.value) }
        outbound.body = .bytes(ByteBuffer(bytes: request.body))
        let (pin, client) = checkOut(for: request)
        defer { checkIn(pin) }
        let (timeout, prepared) = (request.timeout, outbound)
        let outcome = await Self.within(timeout, on: client.eventLoopGroup.next()) { () async throws -> Answer in
            let response = try await client.execute(prepared, timeout: .nanoseconds(timeout.wholeNanoseconds))
            var read = 0
            for try await part in response.body {
                read += part.readableBytes
                if read > Self.maxAnswerBytes { break }
            }
            return Answer(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after").flatMap(Self.retryAfter))
        }
        let latency = ContinuousClock.now - start
        switch outcome {
        case .success(let answer):
            return WebhookResponse(statusCode: answer.status, retryAfter: answer.retryAfter, latency: latency)
        case .failure(let error):
            return WebhookResponse(statusCode: nil, error: Self.describe(error), latency: latency)
        case nil:
            return WebhookResponse(statusCode: nil, error: "no whole answer (connect, head and body) within the timeout of \(timeout)", latency: latency)
        }
    }

    /// The status and `Retry-After` of an answer read to its end.
    private struct Answer: Sendable { let status: Int; let retryAfter: Duration? }

    /// Set once an exchange's time is up.
    private final class Expiry: Sendable { let passed = Atomic<Bool>(false) }

    /// `exchange`'s outcome, or nil when `limit` passed first. The limit is a timer on `loop` (a NIO
    /// thread, on time however busy Swift's cooperative pool is) that cancels the exchange, so
    /// AsyncHTTPClient closes its connection at once; a body cut short then ends as if complete,
    /// which the expiry overrules. Cancelling the caller cancels the exchange, a failure too.
    static func within<T: Sendable>(
        _ limit: Duration, on loop: any EventLoop, _ exchange: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let expiry = Expiry()
        let task = Task { try await exchange() }
        let timer = loop.scheduleTask(in: .nanoseconds(limit.wholeNanoseconds)) {
            expiry.passed.store(true, ordering: .releasing)
            task.cancel()
        }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        timer.cancel()
        if expiry.passed.load(ordering: .acquiring) { return nil }
        if Task.isCancelled { return .failure(CancellationError()) }
        return result
    }

    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return clients.values.map(\.client)
        }
        for client in all { try? await client.shutdown() }
    }

    /// The client pinned to the request's host and checked address, counted as in use.
    private func checkOut(for request: WebhookRequest) -> (Pin, HTTPClient) {
        let pin = Pin(host: request.url.host, address: request.address, timeout: request.timeout)
        let (client, evicted) = clients.withLock { clients -> (HTTPClient, HTTPClient?) in
            if var entry = clients[pin] {
                entry.inFlight += 1
                entry.lastUsed = .now
                clients[pin] = entry
                return (entry.client, nil)
            }
            var evicted: HTTPClient?
            if clients.count >= Self.maxClients, let idle = clients.filter({ $0.value.inFlight == 0 }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                evicted = clients.removeValue(forKey: idle.key)?.client
            }
            let timeout = TimeAmount.nanoseconds(request.timeout.wholeNanoseconds)
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
            configuration.decompression = .disabled
            // A refused connection is a failed attempt now, not retried inside the client until the deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            // The request's URL carries the checked host as parsed (``canonical(_:)``), mapped to the checked address.
            configuration.dnsOverride[pin.host] = pin.address.description
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[pin] = Entry(client: client, inFlight: 1)
            return (client, evicted)
        }
        if let evicted { Task { try? await evicted.shutdown() } }
        return (pin, client)
    }

    private func checkIn(_ pin: Pin) {
        clients.withLock { $0[pin]?.inFlight -= 1 }
    }

    /// The URL with the host exactly as the guard parsed and checked it (lower case, percent-decoded,
    /// IPv6 in brackets) and the port explicit, so AsyncHTTPClient reads the host the override maps.
    static func canonical(_ url: WebhookURL) -> String {
        guard var components = URLComponents(string: url.url) else { return url.url }
        components.percentEncodedHost = url.host.contains(":") ? "[\(url.host)]" : url.host
        components.port = url.port
        components.scheme = url.scheme
        return components.string ?? url.url
    }

    /// `Retry-After` as delay-seconds or an HTTP date.
    static func retryAfter(_ value: String) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1_000))
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}
