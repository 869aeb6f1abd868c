import ArgumentParser
import Delivery
import MeridianServer

/// `serve`'s webhook options, each with a `MERIDIAN_*` environment fallback.
struct WebhookOptions: ParsableArguments {
    @Option(help: "Waits between webhook attempts, e.g. 1s,2s,4s (ms, s, m, h; full jitter; env MERIDIAN_WEBHOOK_BACKOFF; default 5s,30s,2m,10m,30m,1h,2h,4h,8h).")
    var webhookBackoff: String?

    @Option(help: "Seconds one webhook attempt may take (env MERIDIAN_WEBHOOK_TIMEOUT; default 10).")
    var webhookTimeout: Double?

    @Option(help: "Address ranges webhooks may reach although private or loopback, comma-separated CIDRs such as 127.0.0.0/8 (env MERIDIAN_WEBHOOK_ALLOW_CIDR); for tests and private deployments only.")
    var webhookAllowCidr: String?

    @Option(help: "Seconds an instance's claim on a webhook lasts when several share a PostgreSQL database; another takes over within it when one dies (env MERIDIAN_WEBHOOK_LEASE; default 30; at least twice --webhook-timeout).")
    var webhookLease: Double?

    /// Sets the configuration's delivery settings from the flags, then the environment.
    func apply(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        if let text = webhookBackoff ?? environment["MERIDIAN_WEBHOOK_BACKOFF"] {
            guard let schedule = BackoffSchedule(parsing: text) else {
                throw ValidationError("--webhook-backoff must be comma-separated durations such as 1s,2s,4s (ms, s, m or h), got \(text)")
            }
            configuration.delivery.backoff = schedule
        }
        if let timeout = try Duration.seconds(webhookTimeout ?? environment["MERIDIAN_WEBHOOK_TIMEOUT"].flatMap(Double.init), flag: "webhook-timeout", most: 3_600) {
            configuration.delivery.timeout = timeout
        }
        if let lease = try Duration.seconds(webhookLease ?? environment["MERIDIAN_WEBHOOK_LEASE"].flatMap(Double.init), flag: "webhook-lease", most: 3_600) {
            configuration.delivery.lease = lease
        }
        // A claim is renewed before each attempt; one attempt must end well inside it.
        if configuration.delivery.lease < configuration.delivery.timeout * 2 {
            throw ValidationError("""
                --webhook-lease (\(configuration.delivery.lease / .seconds(1)) s) must be at least twice --webhook-timeout \
                (\(configuration.delivery.timeout / .seconds(1)) s): raise the lease or shorten the timeout
                """)
        }
        if let text = webhookAllowCidr ?? environment["MERIDIAN_WEBHOOK_ALLOW_CIDR"] {
            guard let ranges = CIDR.list(text) else { throw ValidationError("--webhook-allow-cidr must be comma-separated CIDRs such as 127.0.0.0/8, got \(text)") }
            configuration.delivery.allowed = ranges
        }
    }
}
