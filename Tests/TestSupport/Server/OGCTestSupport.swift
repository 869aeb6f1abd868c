import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// A GeoJSON Feature as `/ogc` answers it.
public struct OGCWireFeature: Decodable, Equatable, Sendable {
    public struct Geometry: Decodable, Equatable, Sendable {
        public var type: String; public var coordinates: [Double]
        public init(type: String, coordinates: [Double]) { (self.type, self.coordinates) = (type, coordinates) }
    }
    public var type: String
    public var id: String
    public var geometry: Geometry
    public var properties: [String: JSONAny]
}

/// A link of an OGC document.
public struct OGCWireLink: Decodable, Equatable, Sendable {
    public var href: String
    public var rel: String
    public var type: String?
}

/// A page of features as `/ogc/collections/{id}/items` answers it.
public struct OGCWirePage: Decodable, Sendable {
    public var type: String
    public var features: [OGCWireFeature]
    public var links: [OGCWireLink]
    public var numberReturned: Int
    public var numberMatched: Int?
    public var timeStamp: String

    /// The `next` link's href, nil on the last page.
    public var next: String? { links.first { $0.rel == "next" }?.href }
}

extension TestClientProtocol {
    /// Every feature of `path` (an items URL), following `next` links to the end; the pages as read.
    public func ogcPages(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [OGCWirePage] {
        var pages: [OGCWirePage] = []
        var next: String? = path
        while let url = next, pages.count < 1_000 {
            let response = try await send(.get, TestClientProtocolPaths.pathOf(url))
            #expect(response.status == .ok, "\(url): \(String(buffer: response.body))", sourceLocation: sourceLocation)
            #expect(response.headers[.contentType] == "application/geo+json; charset=utf-8", sourceLocation: sourceLocation)
            let page = try response.decode(OGCWirePage.self)
            pages.append(page)
            next = page.next
        }
        return pages
    }

    /// The features `path` (an items URL) answers, all pages.
    public func ogcFeatures(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [OGCWireFeature] {
        try await ogcPages(path, sourceLocation: sourceLocation).flatMap(\.features)
    }
}

/// Links as a router test client follows them.
public enum TestClientProtocolPaths {
    /// The path and query of a link's href (the router test client answers as `http://localhost`).
    public static func pathOf(_ href: String) -> String {
        guard let scheme = href.range(of: "://") else { return href }
        let rest = href[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}
