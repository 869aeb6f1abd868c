import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Any JSON value as a client decodes it (numbers as Doubles), written as literals in expectations.
public indirect enum AnyJSON: Decodable, Equatable, Sendable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([AnyJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: AnyJSON].self)) }
    }

    public init(dictionaryLiteral elements: (String, AnyJSON)...) { self = .object(Dictionary(uniqueKeysWithValues: elements)) }
    public init(arrayLiteral elements: AnyJSON...) { self = .array(elements) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    public subscript(key: String) -> AnyJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}

extension TestClientProtocol {
    /// A device's stored fixes, each as the wire AnyJSON.
    public func storedFixes(_ deviceId: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [AnyJSON] {
        let response = try await execute(uri: "/v1/devices/\(deviceId)/locations", method: .get)
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        guard case .array(let fixes)? = try JSONDecoder().decode(AnyJSON.self, from: Data(response.body.readableBytesView))["locations"] else { return [] }
        return fixes
    }

    /// Sends `body` with `contentType` and `headers` to `uri`.
    public func raw(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil, contentType: String? = nil, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let contentType { headers[.contentType] = contentType }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}
