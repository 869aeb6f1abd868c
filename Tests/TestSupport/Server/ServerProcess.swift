import Dispatch
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// The `meridian` executable next to the test bundle, serving on a free loopback port.
public struct ServerProcess: Sendable {
    public let process: Process
    public let port: Int

    /// Starts the server and waits, off the cooperative pool, for the line that gives its port.
    /// `logFile` receives its standard error (its log) when given.
    public static func start(database: String, arguments: [String] = [], logFile: String? = nil) async throws -> ServerProcess {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try startBlocking(database: database, arguments: arguments, logFile: logFile) })
            }
        }
    }

    private static func startBlocking(database: String, arguments: [String], logFile: String?) throws -> ServerProcess {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--database", database, "--log-level", "warning"] + arguments
        let output = Pipe()
        process.standardOutput = output
        // Not the test runner's stderr: a server outliving a crashed test run would hold that pipe
        // open, and `swift test` would wait for it forever.
        // A file is not a pipe: nothing waits on it.
        if let logFile {
            FileManager.default.createFile(atPath: logFile, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        // The child holds its own descriptor of the log.
        if logFile != nil { try? (process.standardError as? FileHandle)?.close() }
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
    public func kill() {
        guard process.isRunning else { return }
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Kills the server with SIGKILL and waits, off the cooperative pool, until it has ended.
    public func stop() async {
        kill()
        let process = process
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                done.resume()
            }
        }
    }

    public static func executable() throws -> URL {
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

public struct ServerProcessError: Error, CustomStringConvertible {
    public let description: String
}

extension TestClient.Request {
    /// A request to the loopback server; a JSON body gets its content type unless `headers` names one.
    public static func request(_ method: HTTPRequest.Method, _ path: String, json: String? = nil, headers: HTTPFields = [:]) -> Self {
        var headers = headers
        if json != nil && headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return .init(path, method: method, authority: "127.0.0.1", headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestClient.Response {
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data((body ?? ByteBuffer()).readableBytesView))
    }
}

/// A child process run to its end off Swift's cooperative pool: a test blocking one of its two
/// threads on a pipe or a child starves every other test and the in-process servers beside it.
public enum ProcessRun {
    /// How a child process ended and what it printed.
    public struct Result: Sendable { public var status: Int32; public var stdout: String; public var stderr: String }

    public static func run(_ executable: URL, _ arguments: [String]) async -> ProcessRun.Result {
        await withCheckedContinuation { (done: CheckedContinuation<ProcessRun.Result, Never>) in
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
