import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MeridianAPI
import Testing

@Suite struct OperationsContractTests {
    @Test func healthAndReadinessAnswerOK() async throws {
        try await TestApp.withClient { client in
            let health = try await client.get("/healthz", as: Components.Schemas.Health.self)
            let readiness = try await client.get("/readyz", as: Components.Schemas.Health.self)
            #expect(health.status == "ok" && readiness.status == "ok")
        }
    }

    @Test func theContractIsServedAsYAML() async throws {
        try await TestApp.withClient { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/yaml")
            let text = String(buffer: response.body)
            #expect(text.hasPrefix("openapi: 3.1"))
            #expect(text.contains("/v1/convert/coordinates-to-map-points:"))
        }
    }

    @Test func unknownPathsAnswerProblemJSON() async throws {
        try await TestApp.withClient { client in
            let problem = try await client.execute(uri: "/v1/nowhere", method: .get).problem(.notFound)
            #expect(problem.detail?.contains("/v1/nowhere") == true)
        }
    }

    @Test func oversizeBodiesAnswer413() async throws {
        try await TestApp.withClient { client in
            let huge = String(repeating: " ", count: 9 << 20)
            let response = try await client.post("/v1/convert/coordinates-to-map-points", json: huge)
            _ = try response.problem(.contentTooLarge)
        }
    }
}
