import MeridianHTTP
import ArgumentParser
import Foundation
import Hummingbird
import Delivery
import Logging
import MeridianServer
import Storage

/// `meridian serve`: runs the HTTP server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server.")

    @Option(help: "Address to listen on (env MERIDIAN_HOST).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (env MERIDIAN_PORT).")
    var port: Int?

    @Option(help: "SQLite database file, :memory:, or postgres://user@host:port/database shared by several instances (env MERIDIAN_DATABASE).")
    var database: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (env MERIDIAN_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: "Cap long-poll waits and event-stream lives at this many seconds (env MERIDIAN_MAX_WAIT); for contract fuzzing runs.")
    var maxWait: Double?

    @Option(help: "Log lines as text or json (one object per line) (env MERIDIAN_LOG_FORMAT).")
    var logFormat: String?

    @Option(help: "Requests per second each API key may make on average (env MERIDIAN_RATE_LIMIT; default 1000).")
    var rateLimit: Double?

    @Option(help: "Requests each API key may make at once (env MERIDIAN_RATE_BURST; default 2000).")
    var rateBurst: Double?

    @Option(help: "Megabytes of annotations' JSON each tenant keeps in memory for query answers (env MERIDIAN_ANNOTATION_CACHE_MB; default 512; 0 keeps none).")
    var annotationCacheMb: Int?

    @Option(help: "The map page's folder (env MERIDIAN_WEB; default ./Web, filled by make web).")
    var web: String?

    @Option(help: "MBTiles (raster) file of the page's base map (env MERIDIAN_BASEMAP; default ./Web/vendor/basemap.mbtiles, OpenStreetMap zoom 0–6 from make web).")
    var basemap: String?

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
        "An origin (scheme://host[:port]) whose web pages may call the API from a browser; repeat for several; * for any, open mode only (env MERIDIAN_CORS_ORIGINS, comma-separated).",
        valueName: "origin"))
    var corsOrigins: [String] = []

    @OptionGroup var webhooks: WebhookOptions

    @OptionGroup var limits: LimitOptions

    @OptionGroup var retention: RetentionOptions

    @Flag(help: "Serve without keys beyond loopback while no key exists. Anyone who reaches the port can read and write everything.")
    var insecureOpen = false

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
        let formatName = logFormat ?? environment["MERIDIAN_LOG_FORMAT"] ?? LogFormat.text.rawValue
        guard let format = LogFormat(rawValue: formatName) else { throw ValidationError("--log-format must be text or json, got \(formatName)") }
        if format == .json { LoggingSystem.bootstrap(JSONLogHandler.init) }
        for (value, name, keyPath) in [(rateLimit, "RATE_LIMIT", \ServerConfiguration.rateLimit), (rateBurst, "RATE_BURST", \.rateBurst)] {
            guard let rate = value ?? environment["MERIDIAN_\(name)"].flatMap(Double.init) else { continue }
            guard rate.isFinite, rate > 0 else { throw ValidationError("--\(name.lowercased().replacingOccurrences(of: "_", with: "-")) must be a number > 0") }
            configuration[keyPath: keyPath] = rate
        }
        if let megabytes = annotationCacheMb ?? environment["MERIDIAN_ANNOTATION_CACHE_MB"].flatMap(Int.init) {
            guard (0...(1 << 20)).contains(megabytes) else { throw ValidationError("--annotation-cache-mb must be 0…1048576, got \(megabytes)") }
            configuration.annotationCacheBytes = megabytes << 20
        }
        if let folder = web ?? environment["MERIDIAN_WEB"] { configuration.webRoot = folder }
        if let file = basemap ?? environment["MERIDIAN_BASEMAP"] { configuration.baseMapPath = file }
        try webhooks.apply(to: &configuration, environment: environment)
        try limits.apply(to: &configuration, environment: environment)
        try retention.apply(to: &configuration, environment: environment)
        let mode = try await AccessMode.decide(configuration, insecureOpen: insecureOpen)
        configuration.openWhenNoKeys = mode.openWhenNoKeys
        configuration.corsOrigins = corsOrigins.isEmpty ? (environment["MERIDIAN_CORS_ORIGINS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : corsOrigins
        do { _ = try CORSOrigins(configuration.corsOrigins, keyed: mode.keysExist || !mode.openWhenNoKeys) } catch { throw ValidationError(error.description) }
        let app = try await buildApplication(configuration) { [configuration] port in
            // The first line on stdout is the one scripts and tests wait for.
            let host = configuration.host.contains(":") && !configuration.host.hasPrefix("[") ? "[\(configuration.host)]" : configuration.host
            let base = "http://\(host):\(port)"
            var lines = [
                "meridian listening on \(base) (database \(DatabasePlace.displayName(configuration.databasePath))); \(mode.description)",
                "  map \(base)/ · contract \(base)/openapi.yaml · metrics \(base)/metrics · health \(base)/healthz",
            ]
            let allowed = configuration.delivery.allowed
            if !configuration.corsOrigins.isEmpty { lines.append("  pages from \(configuration.corsOrigins.joined(separator: ", ")) may call the API (--cors-origin)") }
            if !allowed.isEmpty { lines.append("  webhooks may reach \(allowed.map(\.description).joined(separator: ", ")) (--webhook-allow-cidr)") }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        try await app.runService()
    }

    private static func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw ValidationError("MERIDIAN_PORT must be 0…65535, got \(text)") }
        return port
    }
}
