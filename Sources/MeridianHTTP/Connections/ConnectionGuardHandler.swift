public import HTTPTypes
public import NIOCore
public import NIOHTTPTypes

/// Keeps one connection within ``ConnectionLimits``: counts it in its address's share (closing it
/// at once past the cap), closes it when its first request head is not whole within the head
/// timeout, when a body does not progress by ``ConnectionLimits/bodyProgress`` bytes (or end)
/// within the body timeout, or when it stays idle after an answer longer than the idle timeout;
/// and tells the ``ConnectionTable`` when the client hangs up.
/// No timer runs while the server itself is answering: the request limit bounds that.
public final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    private let table: ConnectionTable
    private var counted = false
    /// Requests whose head was read and whose answer has not ended (several when pipelined).
    private var unanswered = 0
    /// Whether a request body is being read.
    private var readingBody = false
    private var timer: Scheduled<Void>?
    /// Body bytes since the body timer was last armed.
    private var progress = 0

    public init(table: ConnectionTable) {
        self.table = table
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        guard table.open(context.channel) else {
            context.close(promise: nil)
            return
        }
        counted = true
        arm(table.limits.headTimeout, context: context)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        if counted { table.close(context.channel) }
        counted = false
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            readingBody = true
            progress = 0
            arm(table.limits.bodyTimeout, context: context)
        case .body(let buffer):
            // Progress is a kibibyte: a body dripped a byte at a time cannot hold the connection.
            progress += buffer.readableBytes
            if readingBody, progress >= ConnectionLimits.bodyProgress {
                progress = 0
                arm(table.limits.bodyTimeout, context: context)
            }
        case .end:
            readingBody = false
            // Answering is the server's time, bounded by the request limit; an answer already
            // given (an early 4xx) leaves the connection waiting for its next head.
            if unanswered == 0 { arm(table.limits.idleTimeout, context: context) } else { disarm() }
        }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), unanswered > 0 {
            unanswered -= 1
            if unanswered == 0, !readingBody { arm(table.limits.idleTimeout, context: context) }
        }
        context.write(data, promise: promise)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { table.hangUp(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        table.hangUp(context.channel)
        context.fireChannelInactive()
    }

    private func arm(_ limit: Duration, context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: limit.timeAmount) { channel.close(promise: nil) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
