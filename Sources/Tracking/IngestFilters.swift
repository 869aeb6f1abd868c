/// The ingest filters in force for a device: each member a rule, nil when the rule is off (all are
/// off by default). A fix a rule drops is acknowledged as `filtered` with the rule's name in
/// `filteredBy`, and is neither stored nor evaluated.
///
/// Settings are whole objects: a device's own settings, when it has some, apply in full; else those
/// of the first of its groups (in the order the device lists them) that has some; else the tenant's.
public struct IngestFilters: Hashable, Sendable, Codable {
    /// Metres: a fix whose `horizontalAccuracy` is above this is dropped (equal is kept).
    public var maxHorizontalAccuracy: Double?
    /// Metres: a fix nearer than this (geodesic) to the device's last kept fix is dropped, as AWS
    /// Location's `DistanceBased` position filtering.
    public var minDistance: Double?
    /// Seconds: a fix less than this after the device's last kept fix (event time) is dropped.
    public var minInterval: Double?
    /// Metres per second: a fix implying a speed above this from the device's last kept fix is an
    /// outlier (a jump) and is dropped.
    public var maxSpeed: Double?

    public init(maxHorizontalAccuracy: Double? = nil, minDistance: Double? = nil, minInterval: Double? = nil, maxSpeed: Double? = nil) {
        self.maxHorizontalAccuracy = maxHorizontalAccuracy
        self.minDistance = minDistance
        self.minInterval = minInterval
        self.maxSpeed = maxSpeed
    }

    /// No rule on.
    public static let off = IngestFilters()

    /// The rules, named as their settings are (the names `filteredBy` gives).
    public enum Rule: String, Hashable, Sendable, CaseIterable {
        case maxHorizontalAccuracy, minDistance, minInterval, maxSpeed
    }
}
