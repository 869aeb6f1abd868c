import MeridianHTTP
import CoreMetrics
import Delivery

/// Webhook delivery metrics of one tenant: attempts by outcome, the attempt's latency, and the
/// time from an event's recording to its acknowledgement (fix → receiver).
struct DeliveryMetrics: DeliveryObserver {
    let metrics: ServerMetrics
    let tenant: String

    func attempted(_ attempt: DeliveryAttempt, eventAge: Double) {
        metrics.deliveryAttempt(outcome: attempt.outcome.rawValue, tenant: tenant, latencySeconds: attempt.latencyMilliseconds / 1_000,
                                eventAgeSeconds: attempt.outcome == .delivered ? eventAge : nil)
    }
}

extension ServerMetrics {
    /// Counts a webhook attempt and records its latency (and, when delivered, the event's age).
    func deliveryAttempt(outcome: String, tenant: String, latencySeconds: Double, eventAgeSeconds: Double?) {
        counter("meridian_webhook_deliveries_total", dimensions: [("tenant", tenant), ("outcome", outcome)]).increment()
        CoreMetrics.Timer(label: "meridian_webhook_attempt_duration_seconds", dimensions: [("tenant", tenant)], factory: factory)
            .recordNanoseconds(Int64(latencySeconds * 1e9))
        if let eventAgeSeconds {
            CoreMetrics.Timer(label: "meridian_webhook_delivery_lag_seconds", dimensions: [("tenant", tenant)], factory: factory)
                .recordNanoseconds(Int64(max(0, eventAgeSeconds) * 1e9))
        }
    }

    /// Sets a webhook's lag gauges (read when metrics are scraped).
    func webhookLag(tenant: String, webhook: String, events: Int64, oldestAgeSeconds: Double) {
        let dimensions = [("tenant", tenant), ("webhook", webhook)]
        CoreMetrics.Gauge(label: "meridian_webhook_lag_events", dimensions: dimensions, factory: factory).record(Double(events))
        CoreMetrics.Gauge(label: "meridian_webhook_oldest_undelivered_age_seconds", dimensions: dimensions, factory: factory).record(oldestAgeSeconds)
    }
}
