public import MapGeometry
public import Timeline
public import WireJSON
/// Something a subscription noticed about a device, in the global, gap-free event log.
public struct TrackingEvent: Hashable, Sendable, Identifiable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case initial, significantChange, enter, exit, dwell, visitArrival, visitDeparture
        case offline, online, stopped, moving
    }

    public var id: String
    /// Position in the global log: 1, 2, 3, … with no gaps.
    public var sequence: Int64
    public var subscriptionId: String
    /// The subscription's name and properties when it emitted the event.
    public var subscriptionName: String?
    public var subscriptionProperties: [String: JSONValue]
    public var deviceId: String
    public var kind: Kind
    /// Why, when the fix alone does not say: `regionDeleted` for the exit a deletion emits,
    /// `regionChanged` for an enter or exit an edited region emits.
    public var reason: String?
    public var location: LocationFix
    public var previousLocation: LocationFix?
    /// Whether `location` and `occurredAt` are interpolated between two fixes (a crossing between them).
    public var interpolated: Bool
    /// The stay of a `visitArrival` or `visitDeparture`.
    public var visit: Visit?
    /// The fix's time (event time), the deletion time for a `regionDeleted` exit, or the deadline
    /// for `offline` and `stopped` (``StatusEvaluation``).
    public var occurredAt: Instant
    /// When the server stored it.
    public var recordedAt: Instant
    /// Whether the device it was about has been erased: only ``id``, ``sequence``,
    /// ``subscriptionId`` and ``recordedAt`` are kept, and it reads as `{"sequence": n, "erased": true}`.
    public var erased = false

    public init(
        id: String, sequence: Int64, subscriptionId: String, subscriptionName: String? = nil, subscriptionProperties: [String: JSONValue] = [:],
        deviceId: String, kind: Kind, reason: String? = nil,
        location: LocationFix, previousLocation: LocationFix?, occurredAt: Instant, recordedAt: Instant, interpolated: Bool = false,
        visit: Visit? = nil
    ) {
        self.visit = visit
        self.id = id
        self.sequence = sequence
        self.subscriptionId = subscriptionId
        self.subscriptionName = subscriptionName
        self.subscriptionProperties = subscriptionProperties
        self.deviceId = deviceId
        self.kind = kind
        self.reason = reason
        self.location = location
        self.previousLocation = previousLocation
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.interpolated = interpolated
    }

    /// What remains of an event about an erased device (the other members hold no data).
    public static func erased(id: String, sequence: Int64, subscriptionId: String, recordedAt: Instant) -> TrackingEvent {
        var event = TrackingEvent(
            id: id, sequence: sequence, subscriptionId: subscriptionId, deviceId: "", kind: .initial,
            location: LocationFix(coordinate: .init(latitude: 0, longitude: 0), timestamp: recordedAt, horizontalAccuracy: 0),
            previousLocation: nil, occurredAt: recordedAt, recordedAt: recordedAt)
        event.erased = true
        return event
    }

    /// The reason of the exit emitted when a region subscription is deleted while a device is inside.
    public static let regionDeleted = "regionDeleted"
    /// The reason of the enter or exit emitted when a region's geometry is changed under a device.
    public static let regionChanged = "regionChanged"
}

/// A device as the server knows it.
public struct DeviceState: Hashable, Sendable {
    public var id: String
    /// The newest accepted fix.
    public var lastFix: LocationFix?
    /// The global count of accepted fixes when this device's last one was accepted.
    public var lastAcceptedOrdinal: Int64

    public init(id: String, lastFix: LocationFix? = nil, lastAcceptedOrdinal: Int64 = 0) {
        self.id = id
        self.lastFix = lastFix
        self.lastAcceptedOrdinal = lastAcceptedOrdinal
    }
}

/// Where one subscription stands with one device.
public struct SubscriptionProgress: Hashable, Sendable {
    /// The last fix the subscription evaluated for the device.
    public var lastEvaluated: LocationFix?
    /// Significant change: the location of the last event.
    public var lastNotified: LocationFix?
    /// Region: inside (true), outside (false); nil before the first evaluated fix.
    public var inside: Bool?
    /// Region: when the current stay began (event time).
    public var enteredAt: Instant?
    /// Region: whether this stay has had its `dwell` event.
    public var dwellNotified: Bool
    /// Visits: the run of fixes under way (``StayRun``), announced or not.
    public var stay: StayRun?

    public init(lastEvaluated: LocationFix? = nil, lastNotified: LocationFix? = nil, inside: Bool? = nil, enteredAt: Instant? = nil, dwellNotified: Bool = false, stay: StayRun? = nil) {
        self.stay = stay
        self.lastEvaluated = lastEvaluated
        self.lastNotified = lastNotified
        self.inside = inside
        self.enteredAt = enteredAt
        self.dwellNotified = dwellNotified
    }
}

extension SubscriptionProgress {
    /// Whether both decide the same (inside, the stay, dwell, the last notified fix): they may differ
    /// only in the last evaluated fix, which alone does not make ingest write the progress.
    func decidesAlike(_ other: SubscriptionProgress) -> Bool {
        inside == other.inside && enteredAt == other.enteredAt && dwellNotified == other.dwellNotified && lastNotified == other.lastNotified
            && stay == other.stay
    }
}

/// A subscription and a device.
public struct ProgressKey: Hashable, Sendable {
    public var subscriptionId: String
    public var deviceId: String

    public init(subscriptionId: String, deviceId: String) {
        self.subscriptionId = subscriptionId
        self.deviceId = deviceId
    }
}

/// A stay as a visit event tells it (Core Location's `CLVisit`).
public struct Visit: Hashable, Sendable {
    /// The accuracy-weighted mean of the stay's fixes (up to the event's fix for an arrival).
    public var centre: Coordinate
    /// Metres: √(1/Σ 1/accuracy²).
    public var horizontalAccuracy: Double
    /// The stay's first fix's time.
    public var arrival: Instant
    /// The stay's last fix's time, on a departure.
    public var departure: Instant?

    public init(centre: Coordinate, horizontalAccuracy: Double, arrival: Instant, departure: Instant? = nil) {
        (self.centre, self.horizontalAccuracy, self.arrival, self.departure) = (centre, horizontalAccuracy, arrival, departure)
    }

    /// The visit of `run`: arrived, or departed at its last fix.
    public init(_ run: StayRun, departed: Bool) {
        self.init(centre: run.centre, horizontalAccuracy: run.horizontalAccuracy, arrival: run.first, departure: departed ? run.last : nil)
    }
}
