public import HTTPTypes
public import NIOCore
public import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` (RFC 9110 §10.1.1) so clients that ask
/// before sending a large body — curl does above 1 MiB — send it at once instead of waiting a
/// second. Bodies declared larger than the server ever accepts get no invitation; their 413 follows.
public final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundOut = HTTPResponsePart

    private let maxBodySize: Int

    public init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data),
           request.headerFields[.expect]?.lowercased() == "100-continue",
           (request.headerFields[.contentLength].flatMap(Int.init) ?? 0) <= maxBodySize {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
