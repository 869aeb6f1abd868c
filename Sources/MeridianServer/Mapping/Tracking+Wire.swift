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

extension LocationFix {
    /// A fix from the wire; nil when its timestamp is not RFC 3339. Coordinates and accuracy are
    /// not checked here: a bad one is a per-fix `rejected` status, not an error.
    init?(_ wire: Components.Schemas.Fix) {
        guard let timestamp = Instant(rfc3339: wire.timestamp) else { return nil }
        self.init(
            coordinate: Coordinate(latitude: wire.coordinate.latitude, longitude: wire.coordinate.longitude), timestamp: timestamp,
            horizontalAccuracy: wire.horizontalAccuracy, speed: wire.speed, course: wire.course,
            altitude: wire.altitude, verticalAccuracy: wire.verticalAccuracy
        )
    }
}

extension Components.Schemas.Fix {
    init(_ fix: LocationFix) {
        self.init(
            coordinate: .init(latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude), timestamp: fix.timestamp.rfc3339, horizontalAccuracy: fix.horizontalAccuracy,
            speed: fix.speed, course: fix.course, altitude: fix.altitude, verticalAccuracy: fix.verticalAccuracy
        )
    }
}

extension Components.Schemas.Event {
    init(_ event: TrackingEvent) {
        self.init(
            id: event.id, sequence: event.sequence, subscriptionId: event.subscriptionId, subscriptionName: event.subscriptionName,
            subscriptionProperties: event.subscriptionProperties.isEmpty ? nil : OpenAPIObjectContainer(event.subscriptionProperties),
            deviceId: event.deviceId, _type: .init(event.kind), reason: event.reason.flatMap(ReasonPayload.init(rawValue:)),
            location: .init(event.location), previousLocation: event.previousLocation.map(Components.Schemas.Fix.init),
            occurredAt: event.occurredAt.rfc3339, recordedAt: event.recordedAt.rfc3339,
            interpolated: event.interpolated ? true : nil
        )
    }
}

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
        }
    }
}

extension Components.Schemas.Subscription {
    init(_ subscription: Subscription) {
        self.init(id: subscription.id, _type: .significantChange, createdAt: subscription.createdAt.rfc3339)
        name = subscription.name
        properties = subscription.properties.isEmpty ? nil : OpenAPIObjectContainer(subscription.properties)
        deviceIds = subscription.deviceIds
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
            enteredAt: progress.enteredAt?.rfc3339, dwellNotified: progress.inside == nil ? nil : progress.dwellNotified
        )
    }
}
