import Foundation
import Hummingbird
import HummingbirdTesting
import MeridianServer
import Testing
import TestSupport

/// Clients that ask before sending a large body (curl above 1 MiB) get `100 Continue` at once.
@Suite(.watchdog) struct ExpectContinueTests {
    @Test func aLargeImportIsInvitedWithContinue() async throws {
        let features = (0..<6_000).map { #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(Double($0) / 100 - 30),\#(Double($0 % 80))]},"properties":{"externalId":"c\#($0)","title":"pin \#($0) with a longer title to pass one mebibyte","kind":"pin"}}"# }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-continue-\(UUID()).geojson")
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        #expect(try body.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 > 1 << 20)

        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let curl = await ProcessRun.run(URL(fileURLWithPath: "/usr/bin/env"), [
                "curl", "-sv", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect: 100-continue",
                "-H", "Content-Type: application/geo+json", "--data-binary", "@\(body.path)", "http://127.0.0.1:\(port)/v1/annotations/import",
            ])
            let (status, exchange) = (curl.stdout, curl.stderr)
            #expect(status == "200")
            #expect(exchange.contains("< HTTP/1.1 100 Continue"), "\(exchange.prefix(2_000))")
            #expect(!exchange.contains("Done waiting for 100-continue"))
        }
    }
}

/// A client that writes its whole body before it reads (Python's urllib, which also says
/// `Connection: close`) gets its 413 or 401 at once, with `Connection: close`, instead of waiting
/// on a server that stopped reading.
@Suite(.watchdog) struct EarlyAnswerTests {
    static let client = """
        import sys, time, urllib.request, urllib.error
        url, size, auth = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        headers = {'Content-Type': 'application/json'}
        if auth: headers['Authorization'] = auth
        start = time.time()
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=b' ' * size, headers=headers), timeout=15)
            print('no refusal')
        except urllib.error.HTTPError as e:
            print(e.code, e.headers.get('Connection'), e.headers.get('Content-Type'), round(time.time() - start))
        """

    // The import route has its own, larger limit: lowered here to 2 MiB so that the case costs a
    // 3 MiB body rather than 64 MiB beside the rest of the suite (the rule is the same).
    @Test(arguments: [(3 << 20, "", "413"), (3 << 20 | 1, "", "413"), (3 << 20, "Bearer mrd_0123456789abcdef_wrong", "401")])
    func aClientThatWritesBeforeReadingGetsTheAnswer(size: Int, authorization: String, status: String) async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        var configuration = try await TestApp.configuration()
        configuration.databasePath = file.path
        configuration.openWhenNoKeys = authorization.isEmpty
        configuration.maxImportBodySize = 2 << 20
        let app = try await buildApplication(configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let path = size & 1 == 1 ? "/v1/annotations/import" : "/v1/convert/coordinates-to-map-points"
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", Self.client, "http://127.0.0.1:\(port)\(path)", String(size), authorization]
            let output = Pipe(), errors = Pipe()
            python.standardOutput = output
            python.standardError = errors
            // Wait without blocking a thread of the concurrency pool: the server in this process needs them.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                python.terminationHandler = { _ in done.resume() }
                do { try python.run() } catch { python.terminationHandler = nil; done.resume() }
            }
            let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let trace = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // The answer, in seconds (the client gives up after 15): not a wait on a server that stopped reading.
            let fields = answer.split(separator: " ")
            #expect(fields.prefix(3).joined(separator: " ") == "\(status) close application/problem+json", "\(answer) \(trace.suffix(600))")
            #expect(fields.last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.map { $0 < 10 } == true, "\(answer)")
        }
    }
}
