public import MapGeometry
public import Timeline
public import WireJSON

/// What turns a device's fixes into events: significant location changes, a region's
/// boundary crossings or visits, for one device, a list, or every device (`deviceIds` nil).
public struct Subscription: Hashable, Sendable, Identifiable {
    public var id: String
    /// What the client calls it, if anything (returned with it and in its events).
    public var name: String?
    /// Free JSON the client keeps with it (returned with it and in its events); empty when none.
    public var properties: [String: JSONValue]
    /// The devices it covers by id; nil with ``groups`` nil covers every device.
    public var deviceIds: [String]?
    /// The groups whose devices it covers (as their profiles name them at each fix); nil with
    /// ``deviceIds`` nil covers every device.
    public var groups: [String]?
    /// Fixes older than this many seconds on arrival are skipped; nil accepts any age
    /// (buffered traces uploaded later).
    public var maxLocationAge: Double?
    /// Fixes less accurate than this many metres are skipped.
    public var maxHorizontalAccuracy: Double?
    public var rule: Rule
    /// When it was created (server clock).
    public var createdAt: Instant
    /// The number of fixes accepted across all devices before it was created: a device whose
    /// last accepted fix came later has been evaluated by it.
    public var acceptedFixesBefore: Int64
    /// When it was deleted; its events stay readable.
    public var deletedAt: Instant?
    /// The number of fixes accepted across all devices when it was last edited (nil: never): the
    /// edit wrote its progress with every device whole, under rules that may differ from today's.
    public var editedAfterFixes: Int64?

    public enum Rule: Hashable, Sendable {
        case significantChange(SignificantChangeRule)
        case region(RegionRule)
        case status(StatusRule)
        /// Visits (Core Location's `CLVisit`): arrivals at and departures from stays.
        case visits(StayRule)
    }

    public init(
        id: String, name: String? = nil, properties: [String: JSONValue] = [:], deviceIds: [String]? = nil,
        maxLocationAge: Double? = Self.defaultMaxLocationAge, maxHorizontalAccuracy: Double? = nil, rule: Rule, createdAt: Instant,
        acceptedFixesBefore: Int64 = 0, deletedAt: Instant? = nil, editedAfterFixes: Int64? = nil, groups: [String]? = nil
    ) {
        self.editedAfterFixes = editedAfterFixes
        self.groups = groups
        self.id = id
        self.name = name
        self.properties = properties
        self.deviceIds = deviceIds
        self.maxLocationAge = maxLocationAge
        self.maxHorizontalAccuracy = maxHorizontalAccuracy
        self.rule = rule
        self.createdAt = createdAt
        self.acceptedFixesBefore = acceptedFixesBefore
        self.deletedAt = deletedAt
    }

    /// Characters of `name`.
    public static let maxNameLength = 256

    /// Throws when `name` breaks the rules: 1…256 characters, no control characters.
    public static func check(name: String) throws(FieldError) {
        // Characters as JSON Schema counts them: code points.
        let count = name.unicodeScalars.count
        guard (1...maxNameLength).contains(count) else {
            throw FieldError(path: ["name"], message: "must be 1 to \(maxNameLength) characters, got \(count)")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw FieldError(path: ["name"], message: "must not contain control characters")
        }
    }

    /// Throws when `properties` is too deep or too large (``FreeProperties``).
    public static func check(properties: [String: JSONValue]) throws(FieldError) {
        if let problem = FreeProperties.problem(with: properties) { throw FieldError(path: ["properties"], message: problem) }
    }

    /// Core Location's guidance for cached fixes: older than 15 s is not where the device is.
    public static let defaultMaxLocationAge: Double? = 15

    /// Whether it evaluates fixes of `deviceId`, a member of `groups`: every device when it names
    /// neither devices nor groups, else those it lists and the members of the groups it lists.
    public func covers(_ deviceId: String, groups memberOf: [String]) -> Bool {
        if deviceIds == nil && groups == nil { return true }
        if deviceIds?.contains(deviceId) == true { return true }
        guard let groups else { return false }
        return memberOf.contains(where: groups.contains)
    }

    /// Why it does not evaluate `fix` arriving at `receivedAt`, if it does not.
    public func skipReason(for fix: LocationFix, receivedAt: Instant) -> SkipReason? {
        if let maxLocationAge, receivedAt.seconds(since: fix.timestamp) > maxLocationAge { return .stale }
        if let maxHorizontalAccuracy, fix.horizontalAccuracy > maxHorizontalAccuracy { return .accuracy }
        return nil
    }

    /// The region rule, for region subscriptions.
    public var region: RegionRule? {
        if case .region(let rule) = rule { return rule }
        return nil
    }
}

/// Core Location's significant-change service, with its thresholds made explicit.
public struct SignificantChangeRule: Hashable, Sendable {
    /// Metres (geodesic) from the last notified location.
    public var distanceFilter: Double
    /// Seconds of event time since the last notified location.
    public var minimumInterval: Double

    /// Core Location's significant-change threshold: 500 m.
    public static let defaultDistanceFilter = 500.0
    /// Core Location's significant-change interval: 5 min.
    public static let defaultMinimumInterval = 300.0

    public init(distanceFilter: Double = defaultDistanceFilter, minimumInterval: Double = defaultMinimumInterval) {
        self.distanceFilter = distanceFilter
        self.minimumInterval = minimumInterval
    }
}

/// Region monitoring: enter, exit and dwell with hysteresis at the boundary.
public struct RegionRule: Hashable, Sendable {
    public var shape: RegionShape
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Metres past the boundary (plus the fix's horizontal accuracy) a fix must be to change state.
    public var hysteresis: Double
    /// Seconds inside (event time) after which a `dwell` event is emitted, once per stay.
    public var dwell: Double?
    /// Whether the first evaluated fix, when inside, emits `enter`.
    public var initialTrigger: Bool
    /// Whether a device that passes through between two fixes outside emits `enter` and `exit`
    /// at the interpolated places and times (`detect: ["cross"]`, ``SegmentPassage``).
    public var detectCrossings: Bool

    /// Metres past the boundary by default.
    public static let defaultHysteresis = 50.0

    public init(
        shape: RegionShape, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        hysteresis: Double = defaultHysteresis, dwell: Double? = nil, initialTrigger: Bool = true, detectCrossings: Bool = false
    ) {
        self.shape = shape
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.hysteresis = hysteresis
        self.dwell = dwell
        self.initialTrigger = initialTrigger
        self.detectCrossings = detectCrossings
    }
}
