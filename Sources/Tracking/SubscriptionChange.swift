public import MapGeometry
public import WireJSON

/// An edit of a subscription in place (`PATCH`, a JSON merge patch): each field nil keeps the
/// value; a double optional's `.some(nil)` removes it. Its type and devices never change.
public struct SubscriptionChange: Sendable {
    public var name: String??
    /// A merge patch of `properties` (RFC 7386: null members remove keys), or `.null` to empty them.
    public var properties: JSONValue?
    public var maxLocationAge: Double??
    public var maxHorizontalAccuracy: Double??
    // Significant change.
    public var distanceFilter: Double?
    public var minimumInterval: Double?
    // Visits.
    public var radius: Double?
    public var minimumDuration: Double?
    // Region.
    public var shape: RegionShape?
    public var hysteresis: Double?
    public var dwell: Double??
    public var notifyOnEntry: Bool?
    public var notifyOnExit: Bool?
    public var initialTrigger: Bool?
    public var detectCrossings: Bool?
    // Status.
    public var offlineAfter: Double??
    public var stoppedAfter: Double??
    public var stoppedSpeed: Double?

    public init() {}

    /// The region fields it sets, by their wire names.
    var regionFields: [String] {
        [("region", shape != nil), ("hysteresis", hysteresis != nil), ("dwell", dwell != nil), ("notifyOnEntry", notifyOnEntry != nil),
         ("notifyOnExit", notifyOnExit != nil), ("initialTrigger", initialTrigger != nil), ("detect", detectCrossings != nil)]
            .filter(\.1).map(\.0)
    }

    /// The significant-change fields it sets, by their wire names.
    var significantChangeFields: [String] {
        [("distanceFilter", distanceFilter != nil), ("minimumInterval", minimumInterval != nil)].filter(\.1).map(\.0)
    }

    /// The status fields it sets, by their wire names.
    var statusFields: [String] {
        [("offlineAfter", offlineAfter != nil), ("stoppedAfter", stoppedAfter != nil), ("stoppedSpeed", stoppedSpeed != nil)].filter(\.1).map(\.0)
    }

    /// The visits fields it sets, by their wire names.
    var visitsFields: [String] {
        [("radius", radius != nil), ("minimumDuration", minimumDuration != nil)].filter(\.1).map(\.0)
    }

    /// The first field it sets that belongs to another type of subscription than `subscription`'s,
    /// with why; nil when every field fits.
    public func misfit(for subscription: Subscription) -> FieldError? {
        let type = switch subscription.rule {
        case .significantChange: "significantChange"
        case .region: "region"
        case .visits: "visits"
        case .status: "status"
        }
        let all = [("significantChange", significantChangeFields), ("region", regionFields), ("visits", visitsFields), ("status", statusFields)]
        for (other, fields) in all where other != type {
            if let field = fields.first { return FieldError(path: [field], message: "is a field of \(other) subscriptions; this one is \(type)") }
        }
        return nil
    }

    /// `subscription` with this change made.
    /// - Throws: ``FieldError`` at a field of the other type of subscription (``misfit(for:)``), or
    ///   at merged `properties` that grew past the limits.
    public func applied(to subscription: Subscription) throws(FieldError) -> Subscription {
        if let misfit = misfit(for: subscription) { throw misfit }
        var result = subscription
        if let name { result.name = name }
        switch properties {
        case nil: break
        case .null?: result.properties = [:]
        case .object(let members)?: result.properties = FreeProperties.merge(result.properties, members)
        case _?: throw FieldError(path: ["properties"], message: "must be an object or null")
        }
        try Subscription.check(properties: result.properties)
        if let maxLocationAge { result.maxLocationAge = maxLocationAge }
        if let maxHorizontalAccuracy { result.maxHorizontalAccuracy = maxHorizontalAccuracy }
        switch subscription.rule {
        case .significantChange(var rule):
            if let distanceFilter { rule.distanceFilter = distanceFilter }
            if let minimumInterval { rule.minimumInterval = minimumInterval }
            result.rule = .significantChange(rule)
        case .region(var rule):
            if let shape { rule.shape = shape }
            if let hysteresis { rule.hysteresis = hysteresis }
            if let dwell { rule.dwell = dwell }
            if let notifyOnEntry { rule.notifyOnEntry = notifyOnEntry }
            if let notifyOnExit { rule.notifyOnExit = notifyOnExit }
            if let initialTrigger { rule.initialTrigger = initialTrigger }
            if let detectCrossings { rule.detectCrossings = detectCrossings }
            result.rule = .region(rule)
        case .status(var rule):
            if let offlineAfter { rule.offlineAfter = offlineAfter }
            if let stoppedAfter { rule.stoppedAfter = stoppedAfter }
            if let stoppedSpeed { rule.stoppedSpeed = stoppedSpeed }
            try rule.check()
            result.rule = .status(rule)
        case .visits(var rule):
            if let radius { rule.radius = radius }
            if let minimumDuration { rule.minimumDuration = minimumDuration }
            result.rule = .visits(rule)
        }
        return result
    }
}
