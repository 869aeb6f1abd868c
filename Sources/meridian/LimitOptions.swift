import MeridianHTTP
import ArgumentParser
import Foundation
import MeridianServer

/// `serve`'s connection and load limits, each with a `MERIDIAN_*` environment fallback.
struct LimitOptions: ParsableArguments {
    @Option(help: "Seconds a new connection may take to send its first request head (env MERIDIAN_HEAD_TIMEOUT; default 60).")
    var headTimeout: Double?

    @Option(help: "Seconds a request body may take to progress by 1 KiB or end (env MERIDIAN_BODY_TIMEOUT; default 60).")
    var bodyTimeout: Double?

    @Option(help: "Seconds a kept-alive connection may wait idle for its next request (env MERIDIAN_IDLE_TIMEOUT; default 75).")
    var idleTimeout: Double?

    @Option(help: "Seconds a request may take before it answers 503; streams and long polls excepted (env MERIDIAN_REQUEST_TIMEOUT; default 30).")
    var requestTimeout: Double?

    @Option(help: "Connections one client address may hold open; more are closed as they arrive (env MERIDIAN_MAX_CONNECTIONS_PER_ADDRESS; default 256).")
    var maxConnectionsPerAddress: Int?

    @Option(help: "Expensive queries (filters over rows, exports) one tenant runs at once; more wait their turn (env MERIDIAN_HEAVY_QUERIES_PER_TENANT; default half the cores, at least 1).")
    var heavyQueriesPerTenant: Int?

    /// Sets the configuration's limits from the flags, then the environment.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        let durations: [(Double?, String, WritableKeyPath<ServerConfiguration, Duration>)] = [
            (headTimeout, "HEAD_TIMEOUT", \.connections.headTimeout), (bodyTimeout, "BODY_TIMEOUT", \.connections.bodyTimeout),
            (idleTimeout, "IDLE_TIMEOUT", \.connections.idleTimeout), (requestTimeout, "REQUEST_TIMEOUT", \.requestTimeout),
        ]
        for (value, name, keyPath) in durations {
            let seconds = value ?? environment["MERIDIAN_\(name)"].flatMap(Double.init)
            if let duration = try Duration.seconds(seconds, flag: Self.flag(name), most: 86_400) { configuration[keyPath: keyPath] = duration }
        }
        let counts: [(Int?, String, WritableKeyPath<ServerConfiguration, Int>)] = [
            (maxConnectionsPerAddress, "MAX_CONNECTIONS_PER_ADDRESS", \.connections.maxPerAddress),
            (heavyQueriesPerTenant, "HEAVY_QUERIES_PER_TENANT", \.heavyQueriesPerTenant),
        ]
        for (value, name, keyPath) in counts {
            guard let count = value ?? environment["MERIDIAN_\(name)"].flatMap(Int.init) else { continue }
            guard (1...1_000_000).contains(count) else { throw ValidationError("--\(Self.flag(name)) must be 1…1000000, got \(count)") }
            configuration[keyPath: keyPath] = count
        }
    }

    private static func flag(_ name: String) -> String { name.lowercased().replacingOccurrences(of: "_", with: "-") }
}
