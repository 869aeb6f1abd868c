public import HTTPTypes
public import Hummingbird

/// Content negotiation (RFC 9110 §12), one rule for every operation, fast route or generated: an
/// operation with one representation serves it whatever `Accept` says, and where the contract
/// declares several, `Accept` orders them and what it does not name comes after, in the
/// contract's order. Never 406: an answer the client did not ask for is more use than none.
///
/// What handlers see is the decision: `Accept` becomes the operation's own media types in the
/// client's order of preference, so the generated code's check always passes and a handler that
/// chooses (the contract as YAML or JSON) takes the first.
public struct NegotiationMiddleware<Context: RequestContext>: RouterMiddleware {
    /// `"GET /openapi.yaml"` → its media types (``Contract/representations``).
    public let representations: [String: [String]]
    public let routes: RouteTable

    public init(representations: [String: [String]], routes: RouteTable) {
        (self.representations, self.routes) = (representations, routes)
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let accept = request.headers[values: .accept]
        // No preference (most requests): every handler's own choice is already the first type.
        guard !accept.isEmpty, accept != ["*/*"], let template = routes.template(at: request.uri.path),
              let types = representations["\(request.method.rawValue) \(template)"] else { return try await next(request, context) }
        var head = request.head
        head.headerFields[.accept] = Self.decision(types, accept: accept)
        return try await next(Request(head: head, body: request.body), context)
    }

    /// The `Accept` a handler sees: `types` most wanted first (`application/json,
    /// application/yaml;q=0.9`), ties and unnamed types in declared order; nil for none.
    public static func decision(_ types: [String], accept: [String]) -> String? {
        guard types.count > 1 else { return types.first }
        let list = QualityList(accept)
        let ranked = types.enumerated()
            .map { (type: $0.element, quality: accept.isEmpty ? 1 : list.quality(ofMediaType: $0.element), order: $0.offset) }
            .sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }
        return ranked.enumerated().map { $0.offset == 0 ? $0.element.type : "\($0.element.type);q=0.\(9 - min($0.offset, 8))" }
            .joined(separator: ", ")
    }
}
