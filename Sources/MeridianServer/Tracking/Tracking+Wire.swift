import MeridianHTTP
import Geodesy
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Tracking
import Timeline

// Wire ↔ domain for tracking. Fix times are RFC 3339 strings parsed here to the microsecond
// (the runtime's date transcoder keeps milliseconds, which would merge distinct fixes).

extension Components.Schemas.IngestAnswer {
    init(_ result: Tracker.IngestResult) {
        self.init(
            results: result.results.map(Components.Schemas.FixResult.init),
            skipped: result.skipped.map { .init(index: $0.index, subscriptionId: $0.subscriptionId, reason: .init($0.reason)) },
            events: result.events.map(Components.Schemas.Event.init))
    }
}

extension Components.Schemas.FixResult {
    init(_ result: IngestPlan.Result) {
        switch result.status {
        case .accepted: self.init(index: result.index, status: .accepted)
        case .duplicate: self.init(index: result.index, status: .duplicate)
        case .late: self.init(index: result.index, status: .late, reason: .outOfOrder)
        case .rejected(let reason): self.init(index: result.index, status: .rejected, reason: .init(reason))
        case .filtered(let rule): self.init(index: result.index, status: .filtered, filteredBy: .init(rawValue: rule.rawValue))
        }
    }
}

extension Components.Schemas.Subscription {
    init(_ subscription: Subscription) {
        self.init(id: subscription.id, _type: .significantChange, createdAt: subscription.createdAt.rfc3339)
        name = subscription.name
        properties = subscription.properties.isEmpty ? nil : OpenAPIObjectContainer(subscription.properties)
        deviceIds = subscription.deviceIds
        groups = subscription.groups
        maxLocationAge = subscription.maxLocationAge
        maxHorizontalAccuracy = subscription.maxHorizontalAccuracy
        deletedAt = subscription.deletedAt?.rfc3339
        switch subscription.rule {
        case .significantChange(let rule):
            (distanceFilter, minimumInterval) = (rule.distanceFilter, rule.minimumInterval)
        case .region(let rule):
            _type = .region
            region = .init(rule.shape)
            (notifyOnEntry, notifyOnExit, hysteresis, dwell, initialTrigger) =
                (rule.notifyOnEntry, rule.notifyOnExit, rule.hysteresis, rule.dwell, rule.initialTrigger)
            detect = rule.detectCrossings ? [.cross] : nil
        case .status(let rule):
            _type = .status
            (offlineAfter, stoppedAfter, stoppedSpeed) = (rule.offlineAfter, rule.stoppedAfter, rule.stoppedSpeed)
        case .visits(let rule):
            _type = .visits
            (radius, minimumDuration) = (rule.radius, rule.minimumDuration)
        }
    }
}

extension Components.Schemas.RegionShape {
    init(_ shape: RegionShape) {
        switch shape {
        case .circle(let center, let radius):
            self = .CircleRegion(.init(circle: .init(center: .init(center), radius: radius)))
        case .polygon(let polygon):
            let rings = [polygon.polygon.exterior] + polygon.polygon.holes
            self = .PolygonRegion(.init(_type: .polygon, coordinates: rings.map { $0.map { [$0.longitude, $0.latitude] } }))
        case .corridor(let corridor):
            self = .CorridorRegion(.init(corridor: .init(
                line: .init(_type: .lineString, coordinates: corridor.line.map { [$0.longitude, $0.latitude] }), width: corridor.width)))
        }
    }
}

extension Components.Schemas.DeviceSubscriptionState {
    init(subscriptionId: String, _ progress: SubscriptionProgress) {
        self.init(
            subscriptionId: subscriptionId, lastEvaluated: progress.lastEvaluated.map(Components.Schemas.Fix.init),
            lastNotified: progress.lastNotified.map(Components.Schemas.Fix.init), inside: progress.inside,
            enteredAt: progress.enteredAt?.rfc3339, dwellNotified: progress.inside == nil ? nil : progress.dwellNotified,
            visit: progress.stay.flatMap { $0.arrived ? Components.Schemas.Visit(Visit($0, departed: false)) : nil }
        )
    }
}
