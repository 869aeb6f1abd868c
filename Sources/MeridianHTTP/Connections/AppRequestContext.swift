public import Hummingbird
public import NIOCore

/// The request context of every route: Hummingbird's core context and the connection the
/// request came on (whose hang-up stops the request, ``TimeoutMiddleware``).
public struct AppRequestContext: HeadAwareContext {
    public var coreContext: CoreRequestContextStorage
    public var answersHead = false
    /// The connection the request came on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// A context that says whether the request runs as the `GET` a `HEAD` stands for
/// (``HeadResponder``): a route whose `GET` changes something (an app's ingest by query) answers
/// it without the change.
public protocol HeadAwareContext: RequestContext {
    var answersHead: Bool { get set }
}
