import MeridianHTTP
import HTTPTypes
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// The members of one JSON object an adapter reads, with the pointer of the object for the
/// problems it raises: typed reads of the fields it maps, and the rest kept as attributes.
struct AdapterFields {
    private var members: [String: JSONValue]
    /// RFC 6901 pointer of the object (`""` for the body, `/locations/0/properties`).
    let pointer: String

    /// Nil when `value` is not an object.
    init?(_ value: JSONValue?, at pointer: String) {
        guard let members = value?.objectValue else { return nil }
        (self.members, self.pointer) = (members, pointer)
    }

    /// The object at `name`, which must be one when present.
    mutating func object(_ name: String) throws(ProblemError) -> AdapterFields? {
        guard let value = members.removeValue(forKey: name) else { return nil }
        guard let fields = AdapterFields(value, at: "\(pointer)/\(name)") else { throw Self.wrongType(at: "\(pointer)/\(name)", "an object") }
        return fields
    }

    /// The number at `name`, which must be one when present (null is not).
    mutating func number(_ name: String) throws(ProblemError) -> Double? {
        guard let value = members.removeValue(forKey: name) else { return nil }
        guard case .number(let number) = value, number.double.isFinite else { throw Self.wrongType(at: "\(pointer)/\(name)", "a number") }
        return number.double
    }

    /// The number at `name`, nil when absent or negative: -1 is Core Location's (and the apps')
    /// "unknown" for speed, course, vertical accuracy and battery level.
    mutating func known(_ name: String) throws(ProblemError) -> Double? {
        try number(name).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The number at `name`, required.
    mutating func requiredNumber(_ name: String) throws(ProblemError) -> Double {
        guard let number = try number(name) else { throw Self.missing("\(pointer)/\(name)", "a number") }
        return number
    }

    /// The string at `name`, which must be one when present.
    mutating func string(_ name: String) throws(ProblemError) -> String? {
        guard let value = members.removeValue(forKey: name) else { return nil }
        guard case .string(let text) = value else { throw Self.wrongType(at: "\(pointer)/\(name)", "a string") }
        return text
    }

    /// The boolean at `name`, which must be one when present.
    mutating func bool(_ name: String) throws(ProblemError) -> Bool? {
        guard let value = members.removeValue(forKey: name) else { return nil }
        guard case .bool(let flag) = value else { throw Self.wrongType(at: "\(pointer)/\(name)", "true or false") }
        return flag
    }

    /// The value at `name`, left in place.
    func peek(_ name: String) -> JSONValue? { members[name] }

    /// Removes `name` and answers its value; null reads as absent.
    mutating func take(_ name: String) -> JSONValue? {
        guard let value = members.removeValue(forKey: name), value != .null else { return nil }
        return value
    }

    /// The members not taken, nulls left out: they become attributes under the names the protocol gives them.
    var rest: [String: JSONValue] { members.filter { $0.value != .null } }

    static func wrongType(at pointer: String, _ expected: String) -> ProblemError {
        ProblemError(.badRequest, detail: "\(pointer) must be \(expected)", errors: [.init(pointer: pointer, detail: "must be \(expected)")])
    }

    static func missing(_ pointer: String, _ expected: String) -> ProblemError {
        ProblemError(.badRequest, detail: "\(pointer) is required", errors: [.init(pointer: pointer, detail: "is required: \(expected)")])
    }
}

/// The attributes the protocols share, under Meridian's well-known names.
enum WellKnownAttributes {
    /// 0 (empty) … 1 (full).
    static let batteryLevel = "batteryLevel"
    /// Whether the device is on a charger and charging.
    static let charging = "charging"

    /// `percent` (0–100) as a 0–1 level, exactly `percent / 100`; nil for the -1 apps send when they do not know.
    static func level(percent: Double?) -> Double? {
        percent.flatMap { $0 >= 0 ? $0 / 100 : nil }
    }

    /// Sets `batteryLevel` (0–1) and `charging` in `attributes`, each when known.
    static func record(batteryLevel level: Double?, charging: Bool?, in attributes: inout [String: JSONValue]) {
        if let level { attributes[batteryLevel] = .number(level) }
        if let charging { attributes[self.charging] = .bool(charging) }
    }
}

extension LocationFix {
    /// The fix an adapter read, its attributes checked against the limits every fix has.
    static func adapted(_ fix: LocationFix, pointer: String) throws(ProblemError) -> LocationFix {
        if let problem = LocationFix.problem(withAttributes: fix.attributes) {
            throw ProblemError.invalid(pointer: pointer, "makes attributes that \(problem)")
        }
        return fix
    }
}
