import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Acknowledged writes survive `kill -9`: the real `meridian` binary on a SQLite file is killed
/// right after its last answer, restarted on the same file, and asked for everything it acknowledged.
@Suite(.watchdog) struct DurabilityTests {
    @Test func acknowledgedWritesSurviveSIGKILL() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }

        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }  // also when the test fails half-way: a stray server keeps `swift test` waiting
        // id → the version the server acknowledged, and the id it acknowledged deleting.
        let (acknowledged, deleted) = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            var acknowledged: [String: Int] = [:]
            for index in 0..<40 {
                let body = #"{"externalId":"ack-\#(index)","coordinate":{"latitude":\#(Double(index) / 2),"longitude":\#(-Double(index))},"title":"pin \#(index)"}"#
                let response = try await client.execute(.request(.post, "/v1/annotations", json: body, headers: [.idempotencyKey: "key-\(index)"]))
                #expect(response.status == .created)
                acknowledged[try response.decode(WireAnnotation.self).id] = 1
            }
            let ids = acknowledged.keys.sorted()
            let patch = try await client.execute(.request(.patch, "/v1/annotations/\(ids[3])", json: #"{"title":"patched"}"#, headers: [.contentType: "application/merge-patch+json"]))
            #expect(patch.status == .ok)
            acknowledged[ids[3]] = 2
            #expect(try await client.execute(.request(.delete, "/v1/annotations/\(ids[5])")).status == .noContent)
            acknowledged[ids[5]] = nil
            return (acknowledged, ids[5])
        }
        await first.stop()  // SIGKILL, straight after the last acknowledgement

        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            for (id, version) in acknowledged {
                let response = try await client.execute(.request(.get, "/v1/annotations/\(id)"))
                #expect(response.status == .ok, "annotation \(id) was acknowledged but is lost")
                #expect(response.headers[.eTag] == "\"\(version)\"")
            }
            #expect(try await client.execute(.request(.get, "/v1/annotations/\(deleted)")).status == .gone)
            // The idempotency keys were stored with their writes: a retry after the crash replays.
            let retry = try await client.execute(.request(.post, "/v1/annotations", json: #"{"externalId":"ack-0","coordinate":{"latitude":0.0,"longitude":-0.0},"title":"pin 0"}"#, headers: [.idempotencyKey: "key-0"]))
            #expect(retry.status == .created && retry.headers[.idempotentReplayed] == "true")
            #expect(try retry.decode(WireAnnotation.self).externalId == "ack-0")
        }
    }
}

/// The `meridian` executable next to the test bundle, serving on a free loopback port.
struct ServerProcess {
    let process: Process
    let port: Int

    /// Starts the server and waits, off the cooperative pool, for the line that gives its port.
    static func start(database: String, arguments: [String] = []) async throws -> ServerProcess {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try startBlocking(database: database, arguments: arguments) })
            }
        }
    }

    private static func startBlocking(database: String, arguments: [String]) throws -> ServerProcess {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database, "--log-level", "warning"] + arguments
        let output = Pipe()
        process.standardOutput = output
        // Not the test runner's stderr: a server outliving a crashed test run would hold that pipe
        // open, and `swift test` would wait for it forever.
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the one line `serve` prints once it listens: "meridian listening on http://127.0.0.1:PORT …".
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return ServerProcess(process: process, port: port)
            }
        }
        process.terminate()
        throw ServerProcessError(description: "meridian serve did not report its port; it printed: \(text)")
    }

    /// Sends SIGKILL without waiting (for `defer`: a wait there would hold one of the cooperative
    /// pool's two threads, and two such waits at once stalled every test and server in the process).
    func kill() {
        guard process.isRunning else { return }
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Kills the server with SIGKILL and waits, off the cooperative pool, until it has ended.
    func stop() async {
        kill()
        let process = process
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                done.resume()
            }
        }
    }

    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("meridian"),
            URL(fileURLWithPath: ".build/debug/meridian"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ServerProcessError(description: "build the meridian executable first (swift build --build-tests); looked at \(candidates.map(\.path))")
        }
        return found
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    let description: String
}

extension TestClient.Request {
    /// A request to the loopback server; a JSON body gets its content type unless `headers` names one.
    static func request(_ method: HTTPRequest.Method, _ path: String, json: String? = nil, headers: HTTPFields = [:]) -> Self {
        var headers = headers
        if json != nil && headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return .init(path, method: method, authority: "127.0.0.1", headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestClient.Response {
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data((body ?? ByteBuffer()).readableBytesView))
    }
}

/// A child process run to its end off Swift's cooperative pool: a test blocking one of its two
/// threads on a pipe or a child starves every other test and the in-process servers beside it.
enum ProcessRun {
    static func run(_ executable: URL, _ arguments: [String]) async -> ImportCommandTests.Run {
        await withCheckedContinuation { (done: CheckedContinuation<ImportCommandTests.Run, Never>) in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = executable
                process.arguments = arguments
                let (out, err) = (Pipe(), Pipe())
                (process.standardOutput, process.standardError) = (out, err)
                do { try process.run() } catch {
                    return done.resume(returning: .init(status: -1, stdout: "", stderr: "\(error)"))
                }
                let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                done.resume(returning: .init(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                                             stderr: String(decoding: stderr, as: UTF8.self)))
            }
        }
    }
}
