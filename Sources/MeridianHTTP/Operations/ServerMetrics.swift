public import CoreMetrics
import Foundation
public import Prometheus
import Synchronization

/// The server's Prometheus metrics: swift-metrics instruments made by a `PrometheusMetricsFactory`
/// on this application's own registry (not the process-wide bootstrap, so several applications in
/// one process, as in tests, each count their own). Names and labels are listed once, here.
public final class ServerMetrics: Sendable {
    private struct RouteKey: Hashable { var route: String; var method: String; var status: Int }
    private struct RouteInstruments: @unchecked Sendable { var count: CoreMetrics.Counter; var latency: CoreMetrics.Timer }

    public let registry = PrometheusCollectorRegistry()
    public let factory: PrometheusMetricsFactory
    private let routes = Mutex<[RouteKey: RouteInstruments]>([:])
    private let perTenant = Mutex<[String: CoreMetrics.Counter]>([:])
    /// SQLite write transactions, from BEGIN to COMMIT's return.
    public let commitLatency: CoreMetrics.Timer
    /// Event streams and long polls open now.
    public let openStreams: CoreMetrics.Gauge

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Most answers take well under 5 ms (Prometheus' default first bucket): start at 100 µs.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        commitLatency = CoreMetrics.Timer(label: "meridian_sqlite_commit_duration_seconds", factory: factory)
        openStreams = CoreMetrics.Gauge(label: "meridian_open_streams", factory: factory)
    }

    /// Counts an answered request under its contract route (never the raw URL) and its status.
    public func request(route: String, method: String, status: Int, duration: Duration) {
        let key = RouteKey(route: route, method: method, status: status)
        let instruments = routes.withLock { routes in
            if let found = routes[key] { return found }
            let made = RouteInstruments(
                count: CoreMetrics.Counter(label: "meridian_http_requests_total",
                                           dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory),
                latency: CoreMetrics.Timer(label: "meridian_http_request_duration_seconds",
                                           dimensions: [("route", route), ("method", method)], factory: factory))
            routes[key] = made
            return made
        }
        instruments.count.increment()
        instruments.latency.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Location fixes stored for `tenant` (accepted and late).
    public func fixesIngested(_ count: Int, tenant: String) {
        counter("meridian_fixes_ingested_total", tenant: tenant).increment(by: count)
    }

    /// A location fix of `tenant` the ingest filter `rule` dropped.
    public func fixFiltered(by rule: String, tenant: String) {
        counter("meridian_fixes_filtered_total", dimensions: [("tenant", tenant), ("rule", rule)]).increment()
    }

    /// Events appended to `tenant`'s log.
    public func eventsAppended(_ count: Int64, tenant: String) {
        counter("meridian_events_appended_total", tenant: tenant).increment(by: Int(count))
    }

    /// Status deadlines (`offline`, `stopped`) `tenant`'s timer fired.
    public func deadlinesFired(_ count: Int, tenant: String) {
        counter("meridian_status_deadlines_fired_total", tenant: tenant).increment(by: count)
    }

    /// Sets a per-tenant gauge (read when metrics are scraped).
    public func gauge(_ label: String, tenant: String, _ value: Double) {
        CoreMetrics.Gauge(label: label, dimensions: [("tenant", tenant)], factory: factory).record(value)
    }

    private func counter(_ label: String, tenant: String) -> CoreMetrics.Counter {
        counter(label, dimensions: [("tenant", tenant)])
    }

    /// The counter `label` with `dimensions`, made once.
    public func counter(_ label: String, dimensions: [(String, String)]) -> CoreMetrics.Counter {
        perTenant.withLock { counters in
            let key = ([label] + dimensions.map { $0.0 + "=" + $0.1 }).joined(separator: "\u{0}")
            if let found = counters[key] { return found }
            let made = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = made
            return made
        }
    }
}
