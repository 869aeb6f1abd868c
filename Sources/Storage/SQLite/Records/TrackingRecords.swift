import Foundation
import GRDB
import Geodesy
import MapGeometry
import Tracking
import WireJSON
import Timeline

// How tracking values are kept in JSON columns: short, stable keys of the storage format only
// (the wire format is the contract's, written by the server).

struct StoredFix: Codable {
    var la: Double, lo: Double, t: Int64, h: Double
    var s: Double?, c: Double?, a: Double?, v: Double?
    /// The attributes; absent when there are none.
    var x: [String: JSONValue]?

    init(_ fix: LocationFix) {
        (la, lo, t, h) = (fix.coordinate.latitude, fix.coordinate.longitude, fix.timestamp.microseconds, fix.horizontalAccuracy)
        (s, c, a, v) = (fix.speed, fix.course, fix.altitude, fix.verticalAccuracy)
        x = fix.attributes.isEmpty ? nil : fix.attributes
    }

    /// The same JSON `JSONEncoder` writes (keys in declaration order, nil members left out),
    /// written directly: ingest stores a few of these per fix.
    var text: String {
        var json = JSONWriter(capacity: 96)
        write(to: &json)
        return json.text
    }

    func write(to json: inout JSONWriter) {
        json.raw("{\"la\":"); json.number(la)
        json.raw(",\"lo\":"); json.number(lo)
        json.raw(",\"t\":"); json.raw(String(t))
        json.raw(",\"h\":"); json.number(h)
        for (key, value) in [(",\"s\":" as StaticString, s), (",\"c\":", c), (",\"a\":", a), (",\"v\":", v)] {
            if let value { json.raw(key); json.number(value) }
        }
        if let x { json.raw(",\"x\":"); json.value(.object(x)) }
        json.raw("}")
    }

    var fix: LocationFix {
        LocationFix(coordinate: Coordinate(latitude: la, longitude: lo), timestamp: Instant(microseconds: t), horizontalAccuracy: h,
                    speed: s, course: c, altitude: a, verticalAccuracy: v, attributes: x ?? [:])
    }
}

/// A visits subscription's run under way (``StayRun``): times, count, weighted sums, the hull's
/// origin and vertices, and whether its arrival was announced.
struct StoredStay: Codable {
    var f: Int64, l: Int64, n: Int, w: Double, la: Double, lo: Double
    var o: StoredVisit.Point, hull: [StoredVisit.Point]
    var arrived: Bool?

    init(_ run: StayRun) {
        (f, l, n, w, la, lo) = (run.first.microseconds, run.last.microseconds, run.count, run.weight, run.latitudeMoment, run.longitudeMoment)
        o = StoredVisit.Point(run.hull.origin)
        hull = run.hull.vertices.map(StoredVisit.Point.init)
        arrived = run.arrived ? true : nil
    }

    /// The same JSON `JSONEncoder` writes, written directly: ingest stores one per batch and device.
    func write(to json: inout JSONWriter) {
        json.raw("{\"f\":"); json.raw(String(f))
        json.raw(",\"l\":"); json.raw(String(l))
        json.raw(",\"n\":"); json.int(n)
        json.raw(",\"w\":"); json.number(w)
        json.raw(",\"la\":"); json.number(la)
        json.raw(",\"lo\":"); json.number(lo)
        json.raw(",\"o\":"); o.write(to: &json)
        json.raw(",\"hull\":[")
        for (index, vertex) in hull.enumerated() {
            if index > 0 { json.raw(",") }
            vertex.write(to: &json)
        }
        json.raw("]")
        if let arrived { json.raw(",\"arrived\":"); json.bool(arrived) }
        json.raw("}")
    }

    var run: StayRun {
        StayRun(first: Instant(microseconds: f), last: Instant(microseconds: l), count: n, weight: w, latitudeMoment: la, longitudeMoment: lo,
                hull: StayHull(origin: o.coordinate, vertices: hull.map(\.coordinate)), arrived: arrived ?? false)
    }
}

/// A visit event's stay: centre, accuracy, arrival and departure (Unix microseconds).
struct StoredVisit: Codable {
    struct Point: Codable {
        var la: Double, lo: Double
        init(_ c: Coordinate) { (la, lo) = (c.latitude, c.longitude) }
        var coordinate: Coordinate { Coordinate(latitude: la, longitude: lo) }

        func write(to json: inout JSONWriter) {
            json.raw("{\"la\":"); json.number(la)
            json.raw(",\"lo\":"); json.number(lo)
            json.raw("}")
        }
    }
    var c: Point, h: Double, a: Int64, d: Int64?

    init(_ visit: Visit) {
        (c, h, a, d) = (Point(visit.centre), visit.horizontalAccuracy, visit.arrival.microseconds, visit.departure?.microseconds)
    }

    var visit: Visit {
        Visit(centre: c.coordinate, horizontalAccuracy: h, arrival: Instant(microseconds: a), departure: d.map(Instant.init(microseconds:)))
    }

    /// The column's text, or nil for an event without a visit.
    static func text(_ visit: Visit?) -> String? {
        guard let visit else { return nil }
        return try? JSONColumn.text(StoredVisit(visit))
    }
}

struct StoredProgress: Codable {
    var evaluated: StoredFix?, notified: StoredFix?, inside: Bool?, enteredAt: Int64?, dwelt: Bool?
    /// Visits: the run under way.
    var stay: StoredStay?

    init(_ progress: SubscriptionProgress) {
        evaluated = progress.lastEvaluated.map(StoredFix.init)
        notified = progress.lastNotified.map(StoredFix.init)
        inside = progress.inside
        enteredAt = progress.enteredAt?.microseconds
        dwelt = progress.dwellNotified ? true : nil
        stay = progress.stay.map(StoredStay.init)
    }

    /// The JSON text, written directly (see ``StoredFix/text``).
    var text: String {
        var json = JSONWriter(capacity: 224)
        var first = true
        func key(_ name: StaticString) {
            json.raw(first ? "{" : ","); json.raw(name)
            first = false
        }
        if let evaluated { key("\"evaluated\":"); evaluated.write(to: &json) }
        if let notified { key("\"notified\":"); notified.write(to: &json) }
        if let inside { key("\"inside\":"); json.bool(inside) }
        if let enteredAt { key("\"enteredAt\":"); json.raw(String(enteredAt)) }
        if let dwelt { key("\"dwelt\":"); json.bool(dwelt) }
        if let stay { key("\"stay\":"); stay.write(to: &json) }
        if first { json.raw("{") }
        json.raw("}")
        return json.text
    }

    var progress: SubscriptionProgress {
        SubscriptionProgress(lastEvaluated: evaluated?.fix, lastNotified: notified?.fix, inside: inside,
                             enteredAt: enteredAt.map(Instant.init(microseconds:)), dwellNotified: dwelt ?? false,
                             stay: stay?.run)
    }
}

/// A subscription's definition (what the client asked for), without its bookkeeping columns.
struct StoredSubscription: Codable {
    struct Point: Codable { var la: Double, lo: Double }
    var name: String?
    /// Free properties; absent when empty.
    var properties: [String: JSONValue]?
    var devices: [String]?
    /// The groups it targets (absent: none).
    var groups: [String]?
    var maxAge: Double?
    var maxAccuracy: Double?
    var type: String
    var distanceFilter: Double?, minimumInterval: Double?
    var circle: Point?, radius: Double?
    var rings: [[Point]]?
    /// A corridor's line and whole width.
    var line: [Point]?, width: Double?
    var entry: Bool?, exit: Bool?, hysteresis: Double?, dwell: Double?, initial: Bool?
    /// Region: whether it detects crossings between fixes (absent: no).
    var cross: Bool?
    /// Visits: the least duration of a stay, seconds (`radius` is its radius).
    var minDuration: Double?
    /// Whether `maxAge` was given as null (no limit) rather than left to the default.
    var noMaxAge: Bool?
    /// Fixes accepted across devices when it was last edited; absent if never.
    var edited: Int64?
    /// Status: seconds before `offline` and `stopped` (absent: that half is off), metres per second.
    var offlineAfter: Double?, stoppedAfter: Double?, stoppedSpeed: Double?

    init(_ subscription: Subscription) {
        name = subscription.name
        edited = subscription.editedAfterFixes
        properties = subscription.properties.isEmpty ? nil : subscription.properties
        devices = subscription.deviceIds
        groups = subscription.groups
        maxAge = subscription.maxLocationAge
        noMaxAge = subscription.maxLocationAge == nil ? true : nil
        maxAccuracy = subscription.maxHorizontalAccuracy
        switch subscription.rule {
        case .significantChange(let rule):
            type = "significantChange"
            (distanceFilter, minimumInterval) = (rule.distanceFilter, rule.minimumInterval)
        case .region(let rule):
            type = "region"
            switch rule.shape {
            case .circle(let center, let radius):
                (circle, self.radius) = (Point(la: center.latitude, lo: center.longitude), radius)
            case .polygon(let shape):
                rings = ([shape.polygon.exterior] + shape.polygon.holes).map { $0.map { Point(la: $0.latitude, lo: $0.longitude) } }
            case .corridor(let corridor):
                (line, width) = (corridor.line.map { Point(la: $0.latitude, lo: $0.longitude) }, corridor.width)
            }
            (entry, exit, hysteresis, dwell, initial) = (rule.notifyOnEntry, rule.notifyOnExit, rule.hysteresis, rule.dwell, rule.initialTrigger)
            cross = rule.detectCrossings ? true : nil
        case .status(let rule):
            type = "status"
            (offlineAfter, stoppedAfter, stoppedSpeed) = (rule.offlineAfter, rule.stoppedAfter, rule.stoppedSpeed)
        case .visits(let rule):
            type = "visits"
            (radius, minDuration) = (rule.radius, rule.minimumDuration)
        }
    }

    /// The rule it stores; nil when the definition is not one this version writes (a corrupt row).
    var rule: Subscription.Rule? {
        switch type {
        case "region":
            let shape: RegionShape
            if let circle, let radius {
                shape = .circle(center: Coordinate(latitude: circle.la, longitude: circle.lo), radius: radius)
            } else if let line, let width {
                guard let corridor = CorridorShape(line: line.map { Coordinate(latitude: $0.la, longitude: $0.lo) }, width: width) else { return nil }
                shape = .corridor(corridor)
            } else {
                let rings = (rings ?? []).map { $0.map { Coordinate(latitude: $0.la, longitude: $0.lo) } }
                guard let polygon = PolygonShape(GeoPolygon(exterior: rings.first ?? [], holes: Array(rings.dropFirst()))) else { return nil }
                shape = .polygon(polygon)
            }
            guard let entry, let exit, let hysteresis, let initial else { return nil }
            return .region(RegionRule(
                shape: shape, notifyOnEntry: entry, notifyOnExit: exit, hysteresis: hysteresis, dwell: dwell, initialTrigger: initial,
                detectCrossings: cross ?? false))
        case "significantChange":
            guard let distanceFilter, let minimumInterval else { return nil }
            return .significantChange(SignificantChangeRule(distanceFilter: distanceFilter, minimumInterval: minimumInterval))
        case "status":
            guard let stoppedSpeed else { return nil }
            return .status(StatusRule(offlineAfter: offlineAfter, stoppedAfter: stoppedAfter, stoppedSpeed: stoppedSpeed))
        case "visits":
            guard let radius, let minDuration else { return nil }
            return .visits(StayRule(radius: radius, minimumDuration: minDuration))
        default:
            return nil
        }
    }

    func subscription(id: String, createdAt: Int64, acceptedFixesBefore: Int64, deletedAt: Int64?) throws -> Subscription {
        guard let rule else { throw StorageError.corruptRow(table: SubscriptionRecord.databaseTableName, id: id) }
        return Subscription(
            id: id, name: name, properties: properties ?? [:], deviceIds: devices, maxLocationAge: noMaxAge == true ? nil : maxAge, maxHorizontalAccuracy: maxAccuracy,
            rule: rule, createdAt: Instant(microseconds: createdAt), acceptedFixesBefore: acceptedFixesBefore,
            deletedAt: deletedAt.map(Instant.init(microseconds:)), editedAfterFixes: edited, groups: groups
        )
    }
}

/// JSON columns of tracking rows, written and read in the storage format above.
enum JSONColumn {
    static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try ExactNumbers.encoding { try [UInt8](JSONEncoder().encode(value)) }, as: UTF8.self)
    }

    /// The value a column holds; a column that does not decode is a corrupt row of `table`.
    static func value<T: Decodable>(_ type: T.Type, _ text: String, table: String, id: String) throws -> T {
        do { return try RequestJSON.decoding(Array(text.utf8)) { try JSONDecoder().decode(type, from: Data($0)) } } catch {
            throw StorageError.corruptRow(table: table, id: id)
        }
    }
}

// MARK: - Rows

/// A row of `subscription`: the definition as JSON, the bookkeeping in columns.
struct SubscriptionRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "subscription"
    static let insertSQL = "INSERT INTO subscription (tenant, id, definition, createdAt, acceptedFixesBefore, deletedAt) VALUES (?, ?, ?, ?, ?, NULL)"
    var id: String
    var definition: String
    var createdAt: Int64  // Unix microseconds
    var acceptedFixesBefore: Int64
    var deletedAt: Int64?

    func subscription() throws -> Subscription {
        try JSONColumn.value(StoredSubscription.self, definition, table: Self.databaseTableName, id: id)
            .subscription(id: id, createdAt: createdAt, acceptedFixesBefore: acceptedFixesBefore, deletedAt: deletedAt)
    }
}

/// A row of `device`: its newest accepted fix.
struct DeviceRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "device"
    static let upsertSQL = "INSERT OR REPLACE INTO device (tenant, id, lastFix, lastAcceptedOrdinal) VALUES (?, ?, ?, ?)"
    var id: String
    var lastFix: String?
    var lastAcceptedOrdinal: Int64

    func device() throws -> DeviceState {
        DeviceState(
            id: id, lastFix: try lastFix.map { try JSONColumn.value(StoredFix.self, $0, table: Self.databaseTableName, id: id).fix },
            lastAcceptedOrdinal: lastAcceptedOrdinal)
    }
}

/// A row of `subscriptionProgress`: where one subscription stands with one device.
struct SubscriptionProgressRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "subscriptionProgress"
    static let upsertSQL = "INSERT OR REPLACE INTO subscriptionProgress (subscriptionId, deviceId, progress) VALUES (?, ?, ?)"
    var subscriptionId: String
    var deviceId: String
    var progress: String

    var key: ProgressKey { ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId) }

    func value() throws -> SubscriptionProgress {
        try JSONColumn.value(StoredProgress.self, progress, table: Self.databaseTableName, id: "\(subscriptionId)/\(deviceId)").progress
    }
}

/// A row of `trackingEvent`, the log.
struct TrackingEventRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "trackingEvent"
    static let insertSQL = """
        INSERT INTO trackingEvent (tenant, sequence, id, subscriptionId, deviceId, kind, reason, location, previousLocation, occurredAt, recordedAt,
          interpolated, subscriptionName, subscriptionProperties, visit)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    var sequence: Int64
    var id: String
    var subscriptionId: String
    var deviceId: String
    var kind: String
    var reason: String?
    var location: String  // JSON fix
    var previousLocation: String?
    var occurredAt: Int64  // Unix microseconds
    var recordedAt: Int64
    var interpolated: Bool
    var subscriptionName: String?
    var subscriptionProperties: String?  // JSON object; NULL when empty
    var erased: Bool
    var visit: String?  // JSON StoredVisit; NULL but for visit events

    func event() throws -> TrackingEvent {
        let row = "\(sequence)"
        if erased { return .erased(id: id, sequence: sequence, subscriptionId: subscriptionId, recordedAt: Instant(microseconds: recordedAt)) }
        guard let kind = TrackingEvent.Kind(rawValue: kind) else { throw StorageError.corruptRow(table: Self.databaseTableName, id: row) }
        return TrackingEvent(
            id: id, sequence: sequence, subscriptionId: subscriptionId, subscriptionName: subscriptionName,
            subscriptionProperties: try subscriptionProperties.map { try JSONColumn.value([String: JSONValue].self, $0, table: Self.databaseTableName, id: row) } ?? [:],
            deviceId: deviceId, kind: kind, reason: reason,
            location: try JSONColumn.value(StoredFix.self, location, table: Self.databaseTableName, id: row).fix,
            previousLocation: try previousLocation.map { try JSONColumn.value(StoredFix.self, $0, table: Self.databaseTableName, id: row).fix },
            occurredAt: Instant(microseconds: occurredAt), recordedAt: Instant(microseconds: recordedAt), interpolated: interpolated,
            visit: try visit.map { try JSONColumn.value(StoredVisit.self, $0, table: Self.databaseTableName, id: row).visit })
    }
}

/// A row of `locationFix`: keyed by device and instant.
struct LocationFixRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "locationFix"
    /// A late fix meeting a stored instant is a duplicate: the insert does nothing.
    static let insertSQL = """
        INSERT OR IGNORE INTO locationFix (tenant, deviceId, timestamp, latitude, longitude, horizontalAccuracy, speed, course,
          altitude, verticalAccuracy, receivedAt, late, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    var deviceId: String
    var timestamp: Int64  // Unix microseconds
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double
    var speed: Double?
    var course: Double?
    var altitude: Double?
    var verticalAccuracy: Double?
    var receivedAt: Int64
    var late: Bool
    /// The fix's attributes as canonical JSON; NULL when there are none.
    var attributes: String?

    var fix: LocationFix {
        get throws {
            LocationFix(
                coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: Instant(microseconds: timestamp),
                horizontalAccuracy: horizontalAccuracy, speed: speed, course: course, altitude: altitude, verticalAccuracy: verticalAccuracy,
                attributes: try attributes.map { try JSONColumn.value([String: JSONValue].self, $0, table: Self.databaseTableName, id: deviceId) } ?? [:])
        }
    }
}

/// A row of `deviceStatus`: where a status subscription stands with a device, its pending
/// deadlines in columns (Unix microseconds, NULL: none) so a row is a timer.
struct DeviceStatusRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "deviceStatus"
    static let upsertSQL = """
        INSERT OR REPLACE INTO deviceStatus (tenant, subscriptionId, deviceId, offline, stopped, offlineAt, stoppedAt, followsLastFix)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    var subscriptionId: String
    var deviceId: String
    var offline: Bool
    var stopped: Bool
    var offlineAt: Int64?
    var stoppedAt: Int64?
    var followsLastFix: Bool

    var key: ProgressKey { ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId) }

    var status: DeviceStatus {
        DeviceStatus(offline: offline, stopped: stopped, offlineAt: offlineAt.map(Instant.init(microseconds:)), stoppedAt: stoppedAt.map(Instant.init(microseconds:)),
                     followsLastFix: followsLastFix)
    }
}
