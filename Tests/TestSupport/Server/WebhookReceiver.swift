import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing

/// A real HTTP receiver on 127.0.0.1 (a Hummingbird application on a free port) that records
/// every request and answers as its script says.
public final class WebhookReceiver: Sendable {
    public struct Received: Sendable {
        public var headers: HTTPFields
        public var body: String
        public var at: ContinuousClock.Instant

        public var webhookID: String { headers[HTTPField.Name("webhook-id")!] ?? "" }
        public var sequence: Int64? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["sequence"] as? Int64
        }
    }

    /// How to answer a request: a status, optional headers, and a pause before answering.
    public struct Answer: Sendable {
        public var status: HTTPResponse.Status = .ok
        public var headers: HTTPFields = [:]
        public var delay: Duration = .zero
        /// When set, the body is declared as ``trickleLength`` bytes (`Content-Length`) and sent
        /// one byte per this interval, for at most ``trickleLimit`` (then the connection drops).
        public var trickle: Duration?

        public init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], delay: Duration = .zero, trickle: Duration? = nil) {
            (self.status, self.headers, self.delay, self.trickle) = (status, headers, delay, trickle)
        }
    }

    /// The `Content-Length` a trickling answer declares.
    public static let trickleLength = 100_000
    /// How long a trickling answer goes on before it gives up: far past any timeout a test sets,
    /// and a bound on how long a client that never gives up is held.
    public static let trickleLimit = Duration.seconds(120)

    private let log = Mutex<[Received]>([])
    private let trickles = Mutex<[Int]>([])
    private let script: @Sendable (_ index: Int, _ request: Received) -> Answer
    public let port: Int

    private init(port: Int, script: @escaping @Sendable (Int, Received) -> Answer) {
        self.port = port
        self.script = script
    }

    public var url: String { "http://127.0.0.1:\(port)/hook" }
    public var received: [Received] { log.withLock { $0 } }
    /// For each trickling answer that has ended (the client hung up, or ``trickleLimit`` passed),
    /// how many of its body's bytes were written: a count of the receiver's own steps, so it says
    /// when the client hung up however late a loaded machine runs everyone's timers.
    public var trickled: [Int] { trickles.withLock { $0 } }

    /// Runs `body` with a receiver answering per `script` (request index from 0, the request).
    public static func run<T: Sendable>(
        script: @escaping @Sendable (Int, Received) -> Answer = { _, _ in Answer() },
        _ body: @Sendable (WebhookReceiver) async throws -> T
    ) async throws -> T {
        let holder = Mutex<WebhookReceiver?>(nil)
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let received = Received(headers: request.headers, body: String(buffer: bytes), at: .now)
            guard let receiver = holder.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            let index = receiver.log.withLock { log in
                log.append(received)
                return log.count - 1
            }
            let answer = receiver.script(index, received)
            if answer.delay > .zero { try await Task.sleep(for: answer.delay) }
            guard let interval = answer.trickle else { return Response(status: answer.status, headers: answer.headers) }
            let body = trickling(every: interval) { sent in receiver.trickles.withLock { $0.append(sent) } }
            return Response(status: answer.status, headers: answer.headers, body: body)
        }
        var logger = Logger(label: "receiver")
        logger.logLevel = .critical
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { portSink.yield($0.localAddress?.port ?? 0) }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await app.runService(); return nil }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let receiver = WebhookReceiver(port: port, script: script)
            holder.withLock { $0 = receiver }
            let result = try await body(receiver)
            group.cancelAll()
            return result
        }
    }

    /// A body declaring ``trickleLength`` bytes and sending one per `interval`; after
    /// ``trickleLimit`` it throws, which drops the connection. A write to a client that hung up
    /// throws too. `ended` learns how many bytes were written.
    private static func trickling(every interval: Duration, ended: @escaping @Sendable (Int) -> Void) -> ResponseBody {
        ResponseBody(contentLength: trickleLength) { writer in
            let end = ContinuousClock.now + trickleLimit
            var sent = 0
            defer { ended(sent) }
            for _ in 0..<trickleLength {
                try await writer.write(ByteBuffer(string: " "))
                sent += 1
                try await Task.sleep(for: interval)
                guard ContinuousClock.now < end else { throw CancellationError() }
            }
            try await writer.finish(nil)
        }
    }

    /// Waits until `condition` holds for the requests so far (polling), at most `timeout`.
    @discardableResult
    public func wait(timeout: Duration = .seconds(20), until condition: ([Received]) -> Bool) async throws -> [Received] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let now = received
            if condition(now) { return now }
            guard ContinuousClock.now < deadline else {
                Issue.record("the receiver waited \(timeout) and has \(now.count) requests: \(now.map(\.body))")
                return now
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
