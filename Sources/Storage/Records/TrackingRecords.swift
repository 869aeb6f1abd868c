import Foundation
import Geodesy
import MapGeometry
import Tracking

// How tracking values are kept in JSON columns: short, stable keys of the storage format only
// (the wire format is the contract's, written by the server).

struct StoredFix: Codable {
    var la: Double, lo: Double, t: Int64, h: Double
    var s: Double?, c: Double?, a: Double?, v: Double?

    init(_ fix: LocationFix) {
        (la, lo, t, h) = (fix.coordinate.latitude, fix.coordinate.longitude, fix.timestamp.microseconds, fix.horizontalAccuracy)
        (s, c, a, v) = (fix.speed, fix.course, fix.altitude, fix.verticalAccuracy)
    }

    /// The same JSON `JSONEncoder` writes (keys in declaration order, nil members left out),
    /// written directly: ingest stores a few of these per fix.
    var text: String {
        var text = "{\"la\":\(la),\"lo\":\(lo),\"t\":\(t),\"h\":\(h)"
        for (key, value) in [("s", s), ("c", c), ("a", a), ("v", v)] {
            if let value { text += ",\"\(key)\":\(value)" }
        }
        return text + "}"
    }

    var fix: LocationFix {
        LocationFix(coordinate: Coordinate(latitude: la, longitude: lo), timestamp: FixTime(microseconds: t), horizontalAccuracy: h,
                    speed: s, course: c, altitude: a, verticalAccuracy: v)
    }
}

struct StoredProgress: Codable {
    var evaluated: StoredFix?, notified: StoredFix?, inside: Bool?, enteredAt: Int64?, dwelt: Bool?

    init(_ progress: SubscriptionProgress) {
        evaluated = progress.lastEvaluated.map(StoredFix.init)
        notified = progress.lastNotified.map(StoredFix.init)
        inside = progress.inside
        enteredAt = progress.enteredAt?.microseconds
        dwelt = progress.dwellNotified ? true : nil
    }

    /// The JSON text, written directly (see ``StoredFix/text``).
    var text: String {
        var members: [String] = []
        if let evaluated { members.append("\"evaluated\":\(evaluated.text)") }
        if let notified { members.append("\"notified\":\(notified.text)") }
        if let inside { members.append("\"inside\":\(inside)") }
        if let enteredAt { members.append("\"enteredAt\":\(enteredAt)") }
        if let dwelt { members.append("\"dwelt\":\(dwelt)") }
        return "{" + members.joined(separator: ",") + "}"
    }

    var progress: SubscriptionProgress {
        SubscriptionProgress(lastEvaluated: evaluated?.fix, lastNotified: notified?.fix, inside: inside,
                             enteredAt: enteredAt.map(FixTime.init(microseconds:)), dwellNotified: dwelt ?? false)
    }
}

/// A subscription's definition (what the client asked for), without its bookkeeping columns.
struct StoredSubscription: Codable {
    struct Point: Codable { var la: Double, lo: Double }
    var devices: [String]?
    var maxAge: Double?
    var maxAccuracy: Double?
    var type: String
    var distanceFilter: Double?, minimumInterval: Double?
    var circle: Point?, radius: Double?
    var rings: [[Point]]?
    var entry: Bool?, exit: Bool?, hysteresis: Double?, dwell: Double?, initial: Bool?
    /// Whether `maxAge` was given as null (no limit) rather than left to the default.
    var noMaxAge: Bool?

    init(_ subscription: Subscription) {
        devices = subscription.deviceIds
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
            }
            (entry, exit, hysteresis, dwell, initial) = (rule.notifyOnEntry, rule.notifyOnExit, rule.hysteresis, rule.dwell, rule.initialTrigger)
        }
    }

    func subscription(id: String, createdAt: Int64, acceptedFixesBefore: Int64, deletedAt: Int64?) throws -> Subscription {
        let rule: Subscription.Rule
        if type == "region" {
            let shape: RegionShape
            if let circle, let radius {
                shape = .circle(center: Coordinate(latitude: circle.la, longitude: circle.lo), radius: radius)
            } else {
                let rings = (rings ?? []).map { $0.map { Coordinate(latitude: $0.la, longitude: $0.lo) } }
                shape = .polygon(try PolygonShape(GeoPolygon(exterior: rings.first ?? [], holes: Array(rings.dropFirst()))))
            }
            rule = .region(RegionRule(shape: shape, notifyOnEntry: entry ?? true, notifyOnExit: exit ?? true,
                                      hysteresis: hysteresis ?? 50, dwell: dwell, initialTrigger: initial ?? true))
        } else {
            rule = .significantChange(SignificantChangeRule(distanceFilter: distanceFilter ?? 500, minimumInterval: minimumInterval ?? 300))
        }
        return Subscription(
            id: id, deviceIds: devices, maxLocationAge: noMaxAge == true ? nil : maxAge, maxHorizontalAccuracy: maxAccuracy,
            rule: rule, createdAt: FixTime(microseconds: createdAt), acceptedFixesBefore: acceptedFixesBefore,
            deletedAt: deletedAt.map(FixTime.init(microseconds:))
        )
    }
}

enum JSONColumn {
    static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func value<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
