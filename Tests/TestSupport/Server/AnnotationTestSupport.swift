import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing

/// An annotation as a client reads it off the wire.
public struct WireAnnotation: Decodable, Equatable, Sendable {
    public struct Coordinate: Decodable, Equatable, Sendable {
        public var latitude: Double; public var longitude: Double
        public init(latitude: Double, longitude: Double) { (self.latitude, self.longitude) = (latitude, longitude) }
    }
    public var id: String
    public var externalId: String?
    public var coordinate: Coordinate
    public var title: String?
    public var subtitle: String?
    public var kind: String?
    public var clusteringIdentifier: String?
    public var displayPriority: Int
    public var properties: [String: JSONAny]
    public var version: Int
    public var createdAt: String
    public var updatedAt: String
}

/// Any JSON value, compared structurally (``AnyJSON``).
public typealias JSONAny = AnyJSON

extension TestClientProtocol {
    /// Sends `body` (JSON text) with `headers`; the content type defaults to JSON.
    public func send(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if body != nil && headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// Creates an annotation from a JSON text, expecting 201.
    public func createAnnotation(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireAnnotation {
        let response = try await send(.post, "/v1/annotations", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireAnnotation.self)
    }
}

extension TestResponse {
    /// The body decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }
}

extension HTTPField.Name {
    public static let idempotencyKey = Self("Idempotency-Key")!
    public static let idempotentReplayed = Self("Idempotent-Replayed")!
}

/// A temporary SQLite path, removed with its WAL files by `cleanUp`.
public struct TemporaryDatabase: Sendable {
    public init() {}
    public let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-test-\(UUID()).sqlite").path
    public func cleanUp() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
