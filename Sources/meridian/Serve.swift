import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MeridianServer

/// `meridian serve`: runs the HTTP server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server.")

    @Option(help: "Address to listen on (env MERIDIAN_HOST).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (env MERIDIAN_PORT).")
    var port: Int?

    @Option(help: "SQLite database file, or :memory: (env MERIDIAN_DATABASE).")
    var database: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (env MERIDIAN_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: "Cap long-poll waits and event-stream lives at this many seconds (env MERIDIAN_MAX_WAIT); for contract fuzzing runs.")
    var maxWait: Double?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let defaults = ServerConfiguration()
        let levelName = logLevel ?? environment["MERIDIAN_LOG_LEVEL"]
        guard let level = levelName.map({ Logger.Level(rawValue: $0) }) ?? defaults.logLevel else {
            throw ValidationError("unknown log level \(levelName ?? "")")
        }
        var configuration = ServerConfiguration(
            host: host ?? environment["MERIDIAN_HOST"] ?? defaults.host,
            port: try port ?? environment["MERIDIAN_PORT"].map(Self.parsePort) ?? defaults.port,
            databasePath: database ?? environment["MERIDIAN_DATABASE"] ?? defaults.databasePath,
            logLevel: level
        )
        if let seconds = maxWait ?? environment["MERIDIAN_MAX_WAIT"].flatMap(Double.init) {
            guard seconds.isFinite, seconds >= 0 else { throw ValidationError("--max-wait must be a number of seconds ≥ 0, got \(seconds)") }
            configuration.maxWait = .milliseconds(Int64(seconds * 1000))
        }
        let app = try await buildApplication(configuration) { [configuration] port in
            // One line on stdout that scripts and tests wait for.
            let line = "meridian listening on http://\(configuration.host):\(port) (database \(configuration.databasePath))\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        try await app.runService()
    }

    private static func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw ValidationError("MERIDIAN_PORT must be 0…65535, got \(text)") }
        return port
    }
}
