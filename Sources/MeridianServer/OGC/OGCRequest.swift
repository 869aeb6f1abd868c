import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The request an OGC operation answers, for the links its documents hold (absolute URLs, as
/// OGC API clients follow them): where the client reached the server, the path and the query.
/// Set by ``Middleware`` for the operations that write links.
struct OGCRequest: Sendable {
    @TaskLocal static var current: OGCRequest?

    /// `http://host:port` as the client reached the server (``RequestOrigin``), or "" when unknown.
    var origin: String
    /// The path as sent (no query).
    var path: String
    /// The query's items as sent, in order (names and values percent-decoded).
    var query: [URLQueryItem]

    /// The root of the OGC API: `http://host:port/ogc`.
    static var root: String { (current?.origin ?? "") + "/ogc" }

    /// This request's URL with `changes` applied to its query (nil removes an item).
    static func url(changing changes: [String: String?] = [:]) -> String {
        guard let current else { return root }
        var items = current.query.filter { changes[$0.name] == nil }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        var components = URLComponents()
        components.queryItems = items.isEmpty ? nil : items
        // `+` is a space in a form-encoded query: spell it so no server reads it otherwise.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return current.origin + current.path + (query.map { "?" + $0 } ?? "")
    }

    /// The items of a query string (`+` is a space; a malformed escape is kept as sent).
    static func items(of query: String) -> [URLQueryItem] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return URLQueryItem(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : nil)
        }
    }

    /// The Part 4 operations, which only a writable collection takes.
    static let writes: Set<String> = ["createOGCItem", "replaceOGCItem", "patchOGCItem", "deleteOGCItem"]

    /// Sets ``current`` for the OGC operations. A write to a collection that takes none is 405 with
    /// `Allow`, and to one that does not exist 404, before the runtime reads the path: the contract's
    /// enum of writable collections would make either a 400.
    struct Middleware: ServerMiddleware {
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            guard request.path?.hasPrefix("/ogc") == true else { return try await next(request, body, metadata) }
            if OGCRequest.writes.contains(operationID), let id = metadata.pathParameters["collectionId"] {
                _ = try OGCCollections.writable(String(id).removingPercentEncoding ?? String(id))
            }
            let target = request.path ?? ""
            let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) } ?? (target, "")
            let current = OGCRequest(origin: RequestOrigin.of(request) ?? "", path: path, query: OGCRequest.items(of: query))
            return try await OGCRequest.$current.withValue(current) { try await next(request, body, metadata) }
        }
    }
}
