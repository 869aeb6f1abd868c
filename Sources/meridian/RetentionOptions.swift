import ArgumentParser
import MeridianServer
import Timeline
import Tracking

/// `serve`'s retention: how long fixes and events are kept unless a tenant sets its own.
struct RetentionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Delete fixes this long after their timestamp: 30d, 12h, 90m, 3600s, 2w or ISO 8601 (P30D, PT12H) (env MERIDIAN_KEEP_FIXES; default: keep all).",
        valueName: "period"))
    var keepFixes: String?

    @Option(help: ArgumentHelp(
        "Delete events this long after they were recorded, oldest first, same forms (env MERIDIAN_KEEP_EVENTS; default: keep all).",
        valueName: "period"))
    var keepEvents: String?

    @Option(help: ArgumentHelp(
        "Rows retention deletes per second at most, in batches of 200 (env MERIDIAN_RETENTION_RATE; default 10000): lower keeps ingest's latency flatter while a backlog goes.",
        valueName: "rows"))
    var retentionRate: Double?

    /// Sets the configuration's default retention from the flags, then the environment.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        configuration.retention.keepFixes = try Self.seconds(keepFixes ?? environment["MERIDIAN_KEEP_FIXES"], flag: "keep-fixes")
        configuration.retention.keepEvents = try Self.seconds(keepEvents ?? environment["MERIDIAN_KEEP_EVENTS"], flag: "keep-events")
        if let rate = try retentionRate ?? environment["MERIDIAN_RETENTION_RATE"].map({ text in
            guard let rate = Double(text) else { throw ValidationError("MERIDIAN_RETENTION_RATE must be a number of rows per second, got \(text)") }
            return rate
        }) {
            guard rate.isFinite, rate >= 1 else { throw ValidationError("--retention-rate must be at least 1 row per second, got \(rate)") }
            configuration.retentionPace.rowsPerSecond = rate
        }
    }

    private static func seconds(_ text: String?, flag: String) throws -> Int64? {
        guard let text else { return nil }
        guard let seconds = Period.seconds(text), seconds <= RetentionPolicy.longest else {
            throw ValidationError("--\(flag) must be a period such as 30d, 12h, 90m, 3600s, 2w or P30D (at most 100 years), got \(text)")
        }
        return seconds
    }
}
