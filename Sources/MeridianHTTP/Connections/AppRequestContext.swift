public import Hummingbird
public import NIOCore

/// The request context of every route: Hummingbird's core context and the connection the
/// request came on (whose hang-up stops the request, ``TimeoutMiddleware``).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
