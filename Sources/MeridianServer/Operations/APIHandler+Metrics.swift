import MeridianHTTP
import Delivery
import Prometheus
import AnnotationIndex
import Foundation
import MeridianAPI
import OpenAPIRuntime
import Timeline

extension APIHandler {
    /// Webhooks per tenant whose lag `/metrics` shows (a label per webhook).
    static let webhooksShown = 1_000

    func getMetrics(_ input: Operations.GetMetrics.Input) async throws -> Operations.GetMetrics.Output {
        // Per-tenant gauges are read now, for the tenants this process has opened.
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        for (id, tenant) in await tenants.openedTenants() {
            let index = tenant.thinning.index
            metrics.gauge("meridian_annotations_live", tenant: id.description, Double(index.count))
            metrics.gauge("meridian_thinning_index_bytes", tenant: id.description, Double(index.memoryFootprint))
            metrics.gauge("meridian_annotation_cache_bytes", tenant: id.description, Double(tenant.encoded.bytes))
            metrics.gauge("meridian_oldest_unread_event_age_seconds", tenant: id.description, try await tenant.tracking.oldestUnreadAge(now: now))
            // A failing read leaves these gauges as they were rather than failing the whole scrape.
            for webhook in (try? await tenant.delivery.context.store.webhooks(after: nil, limit: Self.webhooksShown)) ?? [] {
                guard let lag = try? await tenant.delivery.lag(of: webhook) else { continue }
                metrics.webhookLag(tenant: id.description, webhook: webhook.id, events: lag.events, oldestAgeSeconds: lag.oldestAge ?? 0)
            }
        }
        return .ok(.init(body: .plainText(HTTPBody(metrics.registry.emitToBuffer()))))
    }
}
