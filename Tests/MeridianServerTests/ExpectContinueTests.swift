import Foundation
import Hummingbird
import HummingbirdTesting
import MeridianServer
import Testing

/// Clients that ask before sending a large body (curl above 1 MiB) get `100 Continue` at once.
@Suite struct ExpectContinueTests {
    @Test func aLargeImportIsInvitedWithContinue() async throws {
        let features = (0..<6_000).map { #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(Double($0) / 100 - 30),\#(Double($0 % 80))]},"properties":{"externalId":"c\#($0)","title":"pin \#($0) with a longer title to pass one mebibyte","kind":"pin"}}"# }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-continue-\(UUID()).geojson")
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        #expect(try body.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 > 1 << 20)

        let app = try await buildApplication(.testing)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            curl.arguments = [
                "curl", "-sv", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect: 100-continue",
                "-H", "Content-Type: application/geo+json", "--data-binary", "@\(body.path)", "http://127.0.0.1:\(port)/v1/annotations/import",
            ]
            let output = Pipe(), trace = Pipe()
            curl.standardOutput = output
            curl.standardError = trace
            try curl.run()
            let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let exchange = String(decoding: trace.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            curl.waitUntilExit()
            #expect(status == "200")
            #expect(exchange.contains("< HTTP/1.1 100 Continue"), "\(exchange.prefix(2_000))")
            #expect(!exchange.contains("Done waiting for 100-continue"))
        }
    }
}
