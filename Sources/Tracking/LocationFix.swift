public import MapGeometry
public import Timeline
public import WireJSON

/// One position report of a device (Core Location's `CLLocation`).
public struct LocationFix: Hashable, Sendable {
    public var coordinate: Coordinate
    /// When the device measured the position (event time).
    public var timestamp: Instant
    /// Radius of uncertainty in metres; negative means the position is invalid.
    public var horizontalAccuracy: Double
    /// Metres per second.
    public var speed: Double?
    /// Degrees clockwise from true north.
    public var course: Double?
    /// Metres above the WGS84 ellipsoid.
    public var altitude: Double?
    public var verticalAccuracy: Double?
    /// Free values the device reported with the fix (`batteryLevel` 0–1, `charging`, a protocol's
    /// own fields); at most ``maxAttributes`` members, within ``FreeProperties``' limits.
    public var attributes: [String: JSONValue]

    public init(
        coordinate: Coordinate, timestamp: Instant, horizontalAccuracy: Double,
        speed: Double? = nil, course: Double? = nil, altitude: Double? = nil, verticalAccuracy: Double? = nil,
        attributes: [String: JSONValue] = [:]
    ) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.course = course
        self.altitude = altitude
        self.verticalAccuracy = verticalAccuracy
        self.attributes = attributes
    }
}

/// What ingest did with one fix of a batch.
public enum FixStatus: Hashable, Sendable {
    /// Stored and evaluated by every matching subscription.
    case accepted
    /// The device already has a fix at that instant; nothing changed.
    case duplicate
    /// Older than the device's newest accepted fix: stored as history, triggers nothing.
    case late
    /// Not stored.
    case rejected(RejectionReason)
    /// Dropped by the device's ingest filters (``IngestFilters``): neither stored nor evaluated.
    case filtered(IngestFilters.Rule)

    public enum RejectionReason: String, Hashable, Sendable {
        case invalidCoordinate, invalidAccuracy, future
    }
}

/// Why a subscription did not evaluate an accepted fix.
public enum SkipReason: String, Hashable, Sendable {
    /// Older than the subscription's `maxLocationAge` when it arrived.
    case stale
    /// Less accurate than the subscription's `maxHorizontalAccuracy`.
    case accuracy
}

extension LocationFix {
    /// Members a fix's ``attributes`` may have.
    public static let maxAttributes = 32

    /// What is wrong with a fix's attributes, if anything: too many members, too deep or too large.
    public static func problem(withAttributes attributes: [String: JSONValue]) -> String? {
        if attributes.count > maxAttributes { return "must have at most \(maxAttributes) members, got \(attributes.count)" }
        return FreeProperties.problem(with: attributes)
    }

    /// How far ahead of the server clock a fix may be stamped (device clocks drift).
    public static let futureTolerance = 5.0

    /// Nil when the fix may be stored; else why it is refused.
    public func rejection(receivedAt: Instant) -> FixStatus.RejectionReason? {
        let (latitude, longitude) = (coordinate.latitude, coordinate.longitude)
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return .invalidCoordinate
        }
        guard horizontalAccuracy.isFinite, horizontalAccuracy >= 0 else { return .invalidAccuracy }
        if timestamp.seconds(since: receivedAt) > Self.futureTolerance { return .future }
        return nil
    }
}
