import MeridianHTTP
import HTTPTypes
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// The OsmAnd protocol as Traccar's `OsmAndProtocolDecoder` reads it, in its two shapes.
///
/// Parameters (query or form, as Traccar Client, GPSLogger and OsmAnd send them): `id` (or
/// `deviceid`), `lat` and `lon` (or `location=lat,lon`), `timestamp` (``AdapterTime/osmAnd(_:)``;
/// absent: the time it arrives), `speed` in knots, `bearing` (or `heading`) degrees, `altitude`
/// and `accuracy` metres (absent accuracy reads 0, as Traccar's unknown), `hdop` a number (kept as
/// the attribute `hdop`), `batt` percent as
/// `batteryLevel`, `charge` as `charging`. Every other parameter is an attribute under its own
/// name, typed as Traccar types it (a number, `true`/`false`, else text; repeated: an array).
///
/// The JSON body newer Traccar Client versions send: `{"device_id", "location": {"timestamp",
/// "coords": {latitude, longitude, accuracy, speed (m/s), heading, altitude, altitude_accuracy},
/// "battery": {level 0–1, is_charging}, …}}`; -1 (the plugin's unknown) leaves speed, heading,
/// vertical accuracy and battery level out. The location's other members (`is_moving`,
/// `odometer`, `event`, `activity`, …), the coords' others and the members of `extras` are attributes.
enum OsmAndRequest {
    /// Parameters the adapter reads itself, never attributes (`key`, `access_token`: the API key).
    private static let read: Set<String> = [
        "id", "deviceid", "lat", "lon", "location", "timestamp", "speed", "bearing", "heading", "altitude", "accuracy", "hdop", "batt", "charge",
        "key", "access_token", "notificationToken",
    ]

    /// The request's fix; nil for Traccar Client's push-token upload (`id` and `notificationToken`,
    /// no position), which Traccar answers 200 and which is acknowledged here and not kept.
    static func fix(_ fields: FormFields, now: Instant) throws(ProblemError) -> (deviceId: String, fix: LocationFix)? {
        guard let deviceId = fields["id"] ?? fields["deviceid"] else {
            throw ProblemError(.badRequest, detail: "id (the device id) is required", errors: [.init(parameter: "id", detail: "is required")])
        }
        for name in ["id", "deviceid"] {
            for value in fields.values(name) { _ = try DeviceIdentifier.checked(value, parameter: name) }
        }
        // Every occurrence is checked (the query's and the form's), the last one is read.
        func number(_ name: String) throws(ProblemError) -> Double? {
            var value: Double?
            for text in fields.values(name) {
                guard let number = Double(text), number.isFinite else {
                    throw ProblemError(.badRequest, detail: "\(name) must be a number", errors: [.init(parameter: name, detail: "must be a number, got \"\(text)\"")])
                }
                value = number
            }
            return value
        }
        var latitude = try number("lat"), longitude = try number("lon")
        if latitude == nil, longitude == nil, let location = fields["location"] {
            let parts = location.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let first = Double(parts[0]), let second = Double(parts[1]), first.isFinite, second.isFinite else {
                throw ProblemError(.badRequest, detail: "location must be lat,lon", errors: [.init(parameter: "location", detail: "must be lat,lon in degrees")])
            }
            (latitude, longitude) = (first, second)
        }
        if latitude == nil, longitude == nil, fields["notificationToken"] != nil { return nil }
        guard let latitude, let longitude else {
            throw ProblemError(.badRequest, detail: "lat and lon (or location) are required: a fix needs a position",
                               errors: [.init(parameter: fields["lat"] == nil ? "lat" : "lon", detail: "is required")])
        }
        var timestamp = now
        for text in fields.values("timestamp") {
            guard let instant = AdapterTime.osmAnd(text) else {
                throw ProblemError(.badRequest, detail: "timestamp is not a time", errors: [.init(
                    parameter: "timestamp", detail: "must be Unix seconds or milliseconds, ISO 8601, or yyyy-MM-dd HH:mm:ss (UTC)")])
            }
            timestamp = instant
        }
        let bearing = try number("bearing"), heading = try number("heading")
        var fix = LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: timestamp,
            horizontalAccuracy: try number("accuracy") ?? 0, speed: try number("speed").map { SpeedUnits.metresPerSecond(knots: $0) },
            course: bearing ?? heading, altitude: try number("altitude"))
        var values: [String: [JSONValue]] = [:]
        for (name, value) in fields where !read.contains(name) {
            values[name, default: []].append(Self.value(value))
        }
        fix.attributes = values.mapValues { $0.count == 1 ? $0[0] : .array($0) }
        // hdop is a number (Traccar parses it as one), kept as the attribute `hdop`.
        if try number("hdop") != nil, let text = fields.values("hdop").last { fix.attributes["hdop"] = Self.value(text) }
        WellKnownAttributes.record(batteryLevel: WellKnownAttributes.level(percent: try number("batt")),
                                   charging: fields["charge"].map { $0.lowercased() == "true" }, in: &fix.attributes)
        return (deviceId, try LocationFix.adapted(fix, pointer: ""))
    }

    static func fix(json body: UnsafeRawBufferPointer) throws(ProblemError) -> (deviceId: String, fix: LocationFix) {
        guard var root = AdapterFields(JSONValueParser.parse(body), at: "") else {
            throw ProblemError(.badRequest, detail: "the body must be a JSON object with device_id and location")
        }
        guard let deviceId = try root.string("device_id") else { throw AdapterFields.missing("/device_id", "the device id") }
        guard DeviceIdentifier.isValid(deviceId) else { throw ProblemError.invalidDevice(pointer: "/device_id") }
        guard var location = try root.object("location") else { throw AdapterFields.missing("/location", "an object") }
        guard let text = try location.string("timestamp") else { throw AdapterFields.missing("/location/timestamp", "an ISO 8601 date-time") }
        guard let timestamp = AdapterTime.iso8601(text) else { throw AdapterFields.wrongType(at: "/location/timestamp", "an ISO 8601 date-time") }
        guard var coords = try location.object("coords") else { throw AdapterFields.missing("/location/coords", "an object with latitude and longitude") }
        var fix = LocationFix(
            coordinate: Coordinate(latitude: try coords.requiredNumber("latitude"), longitude: try coords.requiredNumber("longitude")),
            timestamp: timestamp, horizontalAccuracy: try coords.number("accuracy") ?? 0,
            speed: try coords.known("speed"), course: try coords.known("heading"),
            altitude: try coords.number("altitude"), verticalAccuracy: try coords.known("altitude_accuracy"))
        var battery = try location.object("battery")
        let level = try battery?.known("level"), charging = try battery?.bool("is_charging")
        let extras = try location.object("extras")
        _ = location.take("_")  // Traccar Client's copy of the fix as query parameters
        fix.attributes = coords.rest.merging(location.rest) { $1 }.merging(extras?.rest ?? [:]) { $1 }
        WellKnownAttributes.record(batteryLevel: level, charging: charging, in: &fix.attributes)
        return (deviceId, try LocationFix.adapted(fix, pointer: "/location"))
    }

    /// A parameter's value as Traccar types it: a number, a boolean, else the text.
    private static func value(_ text: String) -> JSONValue {
        if let number = JSONNumber(text) { return .number(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

}
