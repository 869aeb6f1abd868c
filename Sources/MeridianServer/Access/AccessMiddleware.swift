import MeridianHTTP
import Timeline
import Access
import Foundation
import HTTPTypes
import Hummingbird

/// Who may call what, before anything reads the body: public paths pass; every other request
/// needs a valid key (401 with `WWW-Authenticate: Bearer`), a token from its key's bucket (429
/// with `Retry-After`) and a role that grants the operation's permission (403). The caller then
/// travels with the request in ``RequestScope``, confining every store it reaches to its tenant.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let gatekeeper: Gatekeeper
    let routes: RouteTable
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let template = RequestRecord.route(of: request, in: routes)
        if let template, OperationAccess.publicPaths.contains(template) { return try await next(request, context) }
        let principal: Principal
        do {
            principal = try gatekeeper.principal(authorization: IngestCredentials.authorization(request))
        } catch .unavailable {
            var response = ProblemRouterMiddleware<Context>.response(ProblemDetails(status: .serviceUnavailable, detail: "API keys could not be read just now; retry"))
            response.headers[.retryAfter] = "1"
            return response
        } catch {
            return Self.unauthorized(error)
        }
        RequestRecord.current?.note(tenant: principal.tenant.description, keyID: principal.keyID)
        if let keyID = principal.keyID, let wait = limiter.take(keyID) {
            var response = ProblemRouterMiddleware<Context>.response(ProblemDetails(
                status: .tooManyRequests, detail: "this key made more than \(Self.format(limiter.rate)) requests per second (burst \(Self.format(limiter.burst))); retry after the time Retry-After gives"))
            response.headers[.retryAfter] = String(max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0)))
            return response
        }
        if template == OperationAccess.metricsPath {
            if principal.tenant != .default || principal.role != .admin {
                throw ProblemError(.forbidden, detail: "metrics are the operator's: they need an admin key of the default tenant")
            }
        } else if let permission = OperationAccess.permission(request.method, template), !principal.role.grants(permission) {
            throw ProblemError(.forbidden, detail: "a \(principal.role.rawValue) key may not \(Self.describe(permission)); this needs a key with another role")
        }
        return try await RequestScope.$principal.withValue(principal) { try await next(request, context) }
    }

    /// 401 problem+json with the RFC 6750 challenge.
    static func unauthorized(_ error: AccessError) -> Response {
        let (detail, challenge) = switch error {
        case .missingCredentials:
            ("this request needs an API key: send Authorization: Bearer <key> (meridian keys create makes one)", #"Bearer realm="meridian""#)
        default:
            ("the API key is not valid: unknown, revoked or mistyped", #"Bearer realm="meridian", error="invalid_token""#)
        }
        var response = ProblemRouterMiddleware<Context>.response(ProblemDetails(status: .unauthorized, detail: detail))
        response.headers[.wwwAuthenticate] = challenge
        return response
    }

    private static func describe(_ permission: Permission) -> String {
        switch permission {
        case .read: "read"
        case .writeAnnotations: "write annotations"
        case .ingestLocations: "post location fixes"
        case .administer: "manage subscriptions"
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
