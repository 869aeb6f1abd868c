public import NIOCore

/// How long a connection may keep the server waiting, and how many one address may hold open.
/// The defaults are nginx's (`client_header_timeout`, `client_body_timeout`, `keepalive_timeout`).
public struct ConnectionLimits: Sendable {
    /// A new connection's first request head must be whole within this.
    public var headTimeout: Duration = .seconds(60)
    /// Longest a request body may take to progress by ``bodyProgress`` bytes (or to end).
    public var bodyTimeout: Duration = .seconds(60)
    /// Bytes that count as a body's progress: a body dripped slower than this per ``bodyTimeout``
    /// (about 17 bytes a second by default) is cut off.
    public static let bodyProgress = 1_024
    /// Longest a kept-alive connection may wait for its next request head after an answer.
    public var idleTimeout: Duration = .seconds(75)
    /// Most connections one remote address may hold open; more are closed as they arrive.
    public var maxPerAddress = 256

    public init() {}
}

extension Duration {
    /// The same span as NIO's `TimeAmount`.
    public var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
