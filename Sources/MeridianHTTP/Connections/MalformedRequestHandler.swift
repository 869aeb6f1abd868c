public import HTTPTypes
public import NIOCore
public import NIOHTTP1
public import NIOHTTPTypes

/// A request head that cannot be read answers problem+json 400, like any other bad input, and the
/// connection closes.
///
/// NIO's parser refuses a head with a raw byte outside ASCII in its target (a cluster id of
/// `0xFF` bytes), a head over the decoder's limits (80 KiB of URL and fields, 1 000 fields) or
/// any other malformed head; Hummingbird answered those with an empty 400 without a content
/// type, before any middleware ran. This handler, next to the codec, answers them itself. An error
/// within a request (a malformed chunk size in its body) still reaches that request's handler,
/// which explains it; one that arrives while an earlier answer is still owed is answered after it.
public final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// Longest the connection stays open after the answer for the client to read it and close.
    public static let maxDrainTime: TimeAmount = .seconds(5)

    public init(problems: @escaping ProblemMap) {
        self.problems = problems
    }

    /// A request's head has arrived and its end has not.
    /// The application's errors, named.
    private let problems: ProblemMap
    private var readingRequest = false
    /// Requests whose answer has not been written to its end.
    private var answersOwed = 0
    /// The problem to answer once the answers owed are written.
    private var pending: ProblemDetails?
    /// A malformed head was met: nothing more is read, and the connection closes after its answer.
    private var refusing = false

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // What follows a head that could not be read cannot be trusted as a request.
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head: readingRequest = true; answersOwed += 1
        case .body: break
        case .end: readingRequest = false
        }
        context.fireChannelRead(data)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The decoder reports every read after its error as another one: the answer is on its way.
        guard !refusing else { return }
        guard error is HTTPParserError, !readingRequest else { return context.fireErrorCaught(error) }
        refusing = true
        let problem = Self.problem(for: error, problems: problems)
        if answersOwed > 0 { pending = problem } else { answer(problem, context: context) }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        answersOwed = max(0, answersOwed - 1)
        context.write(data, promise: promise)
        if answersOwed == 0, let problem = pending {
            pending = nil
            answer(problem, context: context)
        }
    }

    /// The 400 for a head that cannot be read: the parser's error named, as for one in a body.
    public static func problem(for error: any Error, problems: ProblemMap) -> ProblemDetails {
        switch error {
        case HTTPParserError.headerOverflow:
            return ProblemDetails(status: .badRequest, detail: "the request head (its URL and header fields) is larger than the server reads (80 KiB, 1 000 fields); the connection closes")
        default:
            return problems(error, nil, nil, false)
                ?? ProblemDetails(status: .badRequest, detail: "the request is not valid HTTP/1.1 (\(error)); the connection closes")
        }
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        // The client has read the answer and closed its side.
        if refusing, case ChannelEvent.inputClosed = event { context.close(promise: nil) }
    }

    /// Writes the answer, then closes the connection's output and reads (and drops) what the
    /// client still sends until it closes, at most ``maxDrainTime``: closing a socket with unread
    /// bytes resets the connection, and the client may lose the answer before reading it.
    private func answer(_ problem: ProblemDetails, context: ChannelHandlerContext) {
        let body = problem.encoded()
        let head = HTTPResponse(status: .init(code: problem.status), headerFields: [
            .contentType: ProblemDetails.mediaType, .contentLength: String(body.count), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
        context.eventLoop.scheduleTask(in: Self.maxDrainTime) { channel.close(promise: nil) }
    }
}
