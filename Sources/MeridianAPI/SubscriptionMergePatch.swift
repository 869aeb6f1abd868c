@_spi(Generated) package import OpenAPIRuntime
package import WireJSON

/// The contract's `SubscriptionPatch` (`typeOverrides`): a JSON merge patch (RFC 7386) whose `null`
/// removes a field (`name`, `dwell`, `maxHorizontalAccuracy`, the `maxLocationAge` limit, `detect`)
/// and whose `properties` merge member by member. Its typed members are read as the generated type
/// would read them (the same errors, so the same 400s); ``members`` keeps the patch as sent.
package struct SubscriptionMergePatch: Codable, Hashable, Sendable {
    package var name: String?
    package var properties: OpenAPIObjectContainer?
    /// Seconds; `null` in ``members`` removes the limit.
    package var maxLocationAge: Double?
    /// Metres.
    package var maxHorizontalAccuracy: Double?
    /// Metres (geodesic).
    package var distanceFilter: Double?
    /// Seconds of event time.
    package var minimumInterval: Double?
    /// Visits: metres.
    package var radius: Double?
    /// Visits: seconds.
    package var minimumDuration: Double?
    package var region: Components.Schemas.RegionShape?
    /// Metres past the boundary.
    package var hysteresis: Double?
    /// Seconds inside before a dwell event.
    package var dwell: Double?
    package var notifyOnEntry: Bool?
    package var notifyOnExit: Bool?
    package var initialTrigger: Bool?
    package var detect: [Components.Schemas.Detection]?
    /// Status: seconds; `null` in ``members`` turns that half off.
    package var offlineAfter: Double?
    package var stoppedAfter: Double?
    /// Status: metres per second.
    package var stoppedSpeed: Double?
    /// The patch's members as sent, `null` (remove) included.
    package var members: [String: JSONValue]

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MergePatchKey.self)
        name = try container.decodeIfPresent(String.self, forKey: "name")
        properties = try container.decodeIfPresent(OpenAPIObjectContainer.self, forKey: "properties")
        maxLocationAge = try container.decodeIfPresent(Double.self, forKey: "maxLocationAge")
        maxHorizontalAccuracy = try container.decodeIfPresent(Double.self, forKey: "maxHorizontalAccuracy")
        distanceFilter = try container.decodeIfPresent(Double.self, forKey: "distanceFilter")
        minimumInterval = try container.decodeIfPresent(Double.self, forKey: "minimumInterval")
        radius = try container.decodeIfPresent(Double.self, forKey: "radius")
        minimumDuration = try container.decodeIfPresent(Double.self, forKey: "minimumDuration")
        region = try container.decodeIfPresent(Components.Schemas.RegionShape.self, forKey: "region")
        hysteresis = try container.decodeIfPresent(Double.self, forKey: "hysteresis")
        dwell = try container.decodeIfPresent(Double.self, forKey: "dwell")
        notifyOnEntry = try container.decodeIfPresent(Bool.self, forKey: "notifyOnEntry")
        notifyOnExit = try container.decodeIfPresent(Bool.self, forKey: "notifyOnExit")
        initialTrigger = try container.decodeIfPresent(Bool.self, forKey: "initialTrigger")
        detect = try container.decodeIfPresent([Components.Schemas.Detection].self, forKey: "detect")
        offlineAfter = try container.decodeIfPresent(Double.self, forKey: "offlineAfter")
        stoppedAfter = try container.decodeIfPresent(Double.self, forKey: "stoppedAfter")
        stoppedSpeed = try container.decodeIfPresent(Double.self, forKey: "stoppedSpeed")
        try decoder.ensureNoAdditionalProperties(knownKeys: [
            "name", "properties", "maxLocationAge", "maxHorizontalAccuracy", "distanceFilter", "minimumInterval", "radius", "minimumDuration", "region",
            "hysteresis", "dwell", "notifyOnEntry", "notifyOnExit", "initialTrigger", "detect", "offlineAfter", "stoppedAfter", "stoppedSpeed",
        ])
        members = try [String: JSONValue](from: decoder)
    }

    /// Writes the members as they were read.
    package func encode(to encoder: any Encoder) throws { try members.encode(to: encoder) }
}
