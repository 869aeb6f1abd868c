public import HTTPTypes
public import Hummingbird
public import NIOCore

/// A method a path does not have is 405 with `Allow` (RFC 9110 §15.5.6), not 404; `OPTIONS` on
/// any contract path answers 204 with `Allow`. Unknown paths go on (and are 404).
public struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    public let routes: RouteTable

    public init(routes: RouteTable) {
        self.routes = routes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let methods = routes.methods(at: request.uri.path), !methods.contains(request.method) else {
            return try await next(request, context)
        }
        let allow = RouteTable.allowHeader(methods + [.options])
        if request.method == .options {
            return Response(status: .noContent, headers: [.allow: allow])
        }
        var response = ProblemRouterMiddleware<Context>.response(ProblemDetails(
            status: .methodNotAllowed, detail: "\(request.uri.path) does not take \(request.method.rawValue); it takes \(allow)"
        ))
        response.headers[.allow] = allow
        return response
    }
}
