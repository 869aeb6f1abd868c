public import HTTPTypes
import Foundation
public import OpenAPIRuntime

/// The contract's paths and the methods each one has, read from the generated handler
/// registration itself (so it cannot drift from `openapi.yaml`). It answers which methods a
/// request path allows (a path that exists but lacks the method is 405 with `Allow`), and which
/// template a path is (the route of access rules, logs and metrics, never the raw URL).
public struct RouteTable: Sendable {
    /// One path template (`/v1/annotations/{id}`) split into segments; `nil` is a `{parameter}`.
    private struct Template: Sendable {
        public var path: String
        public var segments: [Substring?]
        public var methods: [HTTPRequest.Method]
    }

    private var templates: [Template] = []
    /// Templates without parameters, by path: most requests are found here without a scan.
    private var literal: [String: Int] = [:]

    /// The table of every operation `register` declares, without serving any of them.
    public static func recording(_ register: (any ServerTransport) throws -> Void) rethrows -> RouteTable {
        let recorder = Recorder()
        try register(recorder)
        return recorder.table
    }

    /// The methods the contract has at `path`, nil when no template matches it.
    public func methods(at path: String) -> [HTTPRequest.Method]? {
        matches(path).map { $0.flatMap(\.methods) }
    }

    /// The contract's template of `path` (`/v1/annotations/{id}`), nil when none matches it.
    public func template(at path: String) -> String? {
        matches(path)?.first?.path
    }

    /// Every template `path` matches with the fewest parameters: the router prefers literal
    /// segments (`/annotations/changes` over `/annotations/{id}`), and so does the table.
    private func matches(_ path: String) -> [Template]? {
        if let index = literal[path] { return [templates[index]] }
        // Empty segments are dropped, as the router drops them: `/v1/annotations/` and
        // `//v1/annotations` reach the same handler as `/v1/annotations`, so they are that template.
        let segments = path.split(separator: "/")
        let found = templates.filter { template in
            template.segments.count == segments.count
                && zip(template.segments, segments).allSatisfy { pattern, segment in pattern.map { $0 == segment } ?? !segment.isEmpty }
        }
        let parameters = { (template: Template) in template.segments.count { $0 == nil } }
        guard let fewest = found.map(parameters).min() else { return nil }
        return found.filter { parameters($0) == fewest }
    }

    /// The `Allow` header value for a path's methods, with `HEAD` wherever `GET` is (``HeadMiddleware``).
    public static func allowHeader(_ methods: [HTTPRequest.Method]) -> String {
        let all = methods.contains(.get) ? methods + [.head] : methods
        return Array(Set(all.map(\.rawValue))).sorted().joined(separator: ", ")
    }

    fileprivate mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        let segments: [Substring?] = path.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }
        if let index = templates.firstIndex(where: { $0.segments == segments }) {
            templates[index].methods.append(method)
        } else {
            if !segments.contains(nil) { literal[path] = templates.count }
            templates.append(Template(path: path, segments: segments, methods: [method]))
        }
    }
}

/// A transport that only notes what the generated code registers.
private final class Recorder: ServerTransport, @unchecked Sendable {
    // Used by one thread, during `RouteTable.recording`, before the table is shared.
    public var table = RouteTable()

    public func register(
        _ handler: @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        table.add(method, path)
    }
}
