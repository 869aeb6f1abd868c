public import HTTPTypes
public import NIOCore
public import NIOHTTPTypes

/// When the server answers before it has read the whole request body (413, 401, 403, 429 are
/// decided from the head), the answer says `Connection: close`, the rest of the body is read and
/// dropped, and the connection closes once it has arrived.
///
/// Reading it matters: a client that writes its whole body before it reads (Python's `urllib`)
/// would otherwise block on a full TCP window and never see the answer — Hummingbird stops
/// reading after a request that said `Connection: close`, which urllib always says. Closing
/// matters too: what follows an unread body cannot be trusted as the next request.
public final class EarlyAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// Most bytes dropped before the connection is closed without waiting for the body's end.
    public static let maxDrainedBytes = 1 << 30
    /// Longest a sender may take to finish a body nobody reads before the connection is closed.
    public static let maxDrainTime: TimeAmount = .seconds(30)

    public init() {}

    private var requestInProgress = false
    private var draining = false
    private var drained = 0

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head: requestInProgress = true
        case .end: requestInProgress = false
        case .body: break
        }
        guard draining else { return context.fireChannelRead(data) }
        switch part {
        case .body(let buffer):
            drained += buffer.readableBytes
            if drained > Self.maxDrainedBytes { context.close(promise: nil) } else { context.read() }
        case .end, .head:
            context.close(promise: nil)
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var response) = unwrapOutboundIn(data), requestInProgress, response.status.code >= 200 else {
            return context.write(data, promise: promise)
        }
        response.headerFields[.connection] = "close"
        draining = true
        let channel = context.channel
        context.eventLoop.scheduleTask(in: Self.maxDrainTime) { channel.close(promise: nil) }
        context.write(wrapOutboundOut(.head(response)), promise: promise)
    }

    public func flush(context: ChannelHandlerContext) {
        context.flush()
        // Keep reading while the application no longer asks for the body.
        if draining { context.read() }
    }
}
