import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing

/// What every contract test needs: an app on the testing configuration and JSON helpers.
public enum TestApp {
    /// Runs `body` against a fresh application through Hummingbird's router test client, its
    /// configuration the testing one as `configure` changes it.
    public static func withClient(
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = try await configuration()
        configure(&configuration)
        let app = try await buildApplication(configuration)
        try await app.test(.router, body)
    }

    /// The testing configuration on a fresh database of the engine this run tests
    /// (`TestEngine.contract`: the same suite runs once per engine).
    public static func configuration() async throws -> ServerConfiguration {
        var configuration = ServerConfiguration.testing
        configuration.databasePath = try await TestEngine.contract.freshPlace()
        return configuration
    }
}

/// A problem+json answer, decoded.
public struct Problem: Decodable, Equatable, Sendable {
    public struct FieldError: Decodable, Equatable, Sendable {
        public var pointer: String?
        public var parameter: String?
        public var detail: String
    }

    public var type: String
    public var title: String
    public var status: Int
    public var detail: String?
    public var errors: [FieldError]?

    public var pointers: [String] { (errors ?? []).compactMap(\.pointer) }
}

extension TestClientProtocol {
    /// POSTs a JSON text and returns the status, content type and body.
    public func post(_ path: String, json: String, contentType: String = "application/json") async throws -> TestResponse {
        try await execute(
            uri: path, method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: json)
        )
    }

    /// POSTs a JSON text, expects 200 and decodes the answer.
    public func post<Answer: Decodable>(_ path: String, json: String, as type: Answer.Type, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Answer {
        let response = try await post(path, json: json)
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Answer.self, from: Data(response.body.readableBytesView))
    }

    /// GETs a path, expects 200 and decodes the answer.
    public func get<Answer: Decodable>(_ path: String, as type: Answer.Type, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Answer {
        let response = try await execute(uri: path, method: .get)
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Answer.self, from: Data(response.body.readableBytesView))
    }
}

extension TestResponse {
    /// Expects a problem+json answer with `status` and decodes it.
    public func problem(_ status: HTTPResponse.Status, sourceLocation: SourceLocation = #_sourceLocation) throws -> Problem {
        #expect(self.status == status, "\(String(buffer: body))", sourceLocation: sourceLocation)
        #expect(headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let problem = try JSONDecoder().decode(Problem.self, from: Data(body.readableBytesView))
        #expect(problem.status == Int(status.code), sourceLocation: sourceLocation)
        return problem
    }
}

/// Floating-point comparison for answers computed elsewhere.
public func close(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool {
    abs(a - b) <= tolerance
}
