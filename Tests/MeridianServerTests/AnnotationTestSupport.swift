import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing

/// An annotation as a client reads it off the wire.
struct WireAnnotation: Decodable, Equatable {
    struct Coordinate: Decodable, Equatable { var latitude: Double; var longitude: Double }
    var id: String
    var externalId: String?
    var coordinate: Coordinate
    var title: String?
    var subtitle: String?
    var kind: String?
    var clusteringIdentifier: String?
    var displayPriority: Int
    var properties: [String: JSONAny]
    var version: Int
    var createdAt: String
    var updatedAt: String
}

/// Any JSON value, compared structurally.
enum JSONAny: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONAny]), object([String: JSONAny])
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONAny].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONAny].self)) }
    }
}

extension TestClientProtocol {
    /// Sends `body` (JSON text) with `headers`; the content type defaults to JSON.
    func send(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if body != nil && headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// Creates an annotation from a JSON text, expecting 201.
    func createAnnotation(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireAnnotation {
        let response = try await send(.post, "/v1/annotations", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireAnnotation.self)
    }
}

extension TestResponse {
    /// The body decoded as `type`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }
}

extension HTTPField.Name {
    static let ifMatch = Self("If-Match")!
    static let ifNoneMatch = Self("If-None-Match")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}

/// A temporary SQLite path, removed with its WAL files by `cleanUp`.
struct TemporaryDatabase {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-test-\(UUID()).sqlite").path
    func cleanUp() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
