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

    /// Sets the configuration's default retention from the flags, then the environment.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        configuration.retention.keepFixes = try Self.seconds(keepFixes ?? environment["MERIDIAN_KEEP_FIXES"], flag: "keep-fixes")
        configuration.retention.keepEvents = try Self.seconds(keepEvents ?? environment["MERIDIAN_KEEP_EVENTS"], flag: "keep-events")
    }

    private static func seconds(_ text: String?, flag: String) throws -> Int64? {
        guard let text else { return nil }
        guard let seconds = Period.seconds(text), seconds <= RetentionPolicy.longest else {
            throw ValidationError("--\(flag) must be a period such as 30d, 12h, 90m, 3600s, 2w or P30D (at most 100 years), got \(text)")
        }
        return seconds
    }
}
