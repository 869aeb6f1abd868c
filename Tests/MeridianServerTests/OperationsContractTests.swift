import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MeridianAPI
import Testing
import TestSupport

@Suite(.watchdog) struct OperationsContractTests {
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

    @Test func theContractIsServedAsJSONToClientsThatAskForIt() async throws {
        try await TestApp.withClient { client in
            for (uri, accept) in [("/openapi.json", nil), ("/openapi.yaml", "application/json"), ("/openapi.yaml", "application/yaml;q=0.5, application/json")] {
                let response = try await client.execute(uri: uri, method: .get, headers: accept.map { [.accept: $0] } ?? [:])
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(uri) \(accept ?? "")")
                let document = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                #expect(document?["openapi"] as? String == "3.1.0")
                let paths = document?["paths"] as? [String: Any]
                #expect(paths?["/v1/annotations/{id}"] != nil && paths?["/openapi.json"] != nil)
            }
            let yaml = try await client.execute(uri: "/openapi.yaml", method: .get, headers: [.accept: "application/json;q=0.1, application/yaml"])
            #expect(yaml.headers[.contentType] == "application/yaml")
        }
    }

    @Test func theContractAsJSONKeepsTheYAMLsOrder() async throws {
        try await TestApp.withClient { client in
            let yaml = String(buffer: try await client.execute(uri: "/openapi.yaml", method: .get).body)
            let json = String(buffer: try await client.execute(uri: "/openapi.json", method: .get).body)
            let negotiated = try await client.execute(uri: "/openapi.yaml", method: .get, headers: [.accept: "application/json"])
            #expect(String(buffer: negotiated.body) == json)
            // Every path, in the YAML's order; then one operation's responses, the 2xx first as the YAML lists them.
            let paths = yaml.split(separator: "\n").filter { $0.hasPrefix("  /") }.map { "\"\($0.dropFirst(2).dropLast())\":{" }
            let offsets = paths.map { json.range(of: $0)?.lowerBound }
            #expect(paths.count > 50 && !offsets.contains(nil) && offsets.compactMap { $0 } == offsets.compactMap { $0 }.sorted())
            #expect(json.hasPrefix(#"{"openapi":"3.1.0","info":{"title":"Meridian""#))
            let create = try #require(json.range(of: #""operationId":"createAnnotation""#))
            let created = try #require(json.range(of: #""201":"#, range: create.upperBound..<json.endIndex))
            let unauthorized = try #require(json.range(of: #""401":"#, range: create.upperBound..<json.endIndex))
            #expect(created.lowerBound < unauthorized.lowerBound)
        }
    }

    @Test func aMethodThePathDoesNotHaveIs405WithAllow() async throws {
        try await TestApp.withClient { client in
            for (uri, method, allow) in [
                ("/v1/viewport", HTTPRequest.Method.trace, "OPTIONS, POST"), ("/healthz", .delete, "GET, HEAD, OPTIONS"),
                ("/v1/annotations/0190a0a0-0000-7000-8000-000000000001", .post, "DELETE, GET, HEAD, OPTIONS, PATCH"),
                ("/v1/convert/coordinates-to-map-points", .get, "OPTIONS, POST"),
            ] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                _ = try response.problem(.methodNotAllowed)
            }
            let options = try await client.execute(uri: "/v1/subscriptions", method: .options)
            #expect(options.status == .noContent && options.headers[.allow] == "GET, HEAD, OPTIONS, POST")
            // A path the contract does not have stays 404 whatever the method.
            _ = try await client.execute(uri: "/v1/nowhere", method: .trace).problem(.notFound)
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
