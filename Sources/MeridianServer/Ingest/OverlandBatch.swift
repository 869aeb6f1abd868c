import MeridianHTTP
import HTTPTypes
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// An Overland (iOS) upload, as its README describes it: `{"locations": [Feature, …]}`, each a
/// GeoJSON Point feature (`[longitude, latitude]`) whose properties carry `timestamp` (ISO 8601),
/// `horizontal_accuracy`, `altitude`, `vertical_accuracy`, `speed` (m/s), `course` (degrees),
/// `battery_level` (0–1, kept as `batteryLevel`), `battery_state` (also read as `charging`) and
/// `device_id`. Core Location's -1 (unknown) leaves speed, course and vertical accuracy out;
/// every other property (`motion`, `wifi`, `battery_state`, `activity`, …) is an attribute under
/// its own name. The top-level `current` and `trip` members are not read. The app also queues
/// features that are not fixes in `locations` — its log actions (`properties.action`, e.g.
/// `will_terminate`, some without geometry), visits (`action: "visit"`) and trip summaries
/// (`properties.type: "trip"`), stamped with the time they were written: they are acknowledged and
/// not stored, so an upload holding one is neither refused (the app would resend it forever) nor
/// turned into a fix at a place the device was not.
enum OverlandBatch {
    /// The fixes with their device: the feature's `device_id` when it is not empty, else `fallbackDevice`.
    static func fixes(_ body: UnsafeRawBufferPointer, fallbackDevice: String?) throws(ProblemError) -> [(deviceId: String, fix: LocationFix)] {
        guard var root = AdapterFields(JSONValueParser.parse(body), at: ""), case .array(let features)? = root.take("locations") else {
            throw ProblemError(.badRequest, detail: "the body must be an Overland upload: {\"locations\": [GeoJSON Point features]}",
                               errors: [.init(pointer: "/locations", detail: "is required: an array of GeoJSON Point features")])
        }
        guard features.count <= RequestRules.maxFixesPerRequest else {
            throw ProblemError.invalid(pointer: "/locations", "holds \(features.count) locations; at most \(RequestRules.maxFixesPerRequest) per request (Overland's batch size setting)")
        }
        var fixes: [(deviceId: String, fix: LocationFix)] = []
        fixes.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            if let fix = try fix(feature, at: "/locations/\(index)", fallbackDevice: fallbackDevice) { fixes.append(fix) }
        }
        return fixes
    }

    /// The feature's fix, or nil for a feature that is not one (a log action, a visit, a trip).
    private static func fix(_ feature: JSONValue, at pointer: String, fallbackDevice: String?) throws(ProblemError) -> (deviceId: String, fix: LocationFix)? {
        guard var fields = AdapterFields(feature, at: pointer) else { throw AdapterFields.wrongType(at: pointer, "a GeoJSON Point feature") }
        _ = try fields.string("type")  // "Feature", as Overland sends; any other kind of value is refused
        if case .object(let members)? = fields.peek("properties"), members["action"] != nil || members["type"] == .string("trip") { return nil }
        guard var geometry = try fields.object("geometry"), try geometry.string("type") == "Point",
              case .array(let position)? = geometry.take("coordinates"), position.count >= 2,
              case .number(let longitude) = position[0], case .number(let latitude) = position[1]
        else { throw AdapterFields.wrongType(at: "\(pointer)/geometry", "a GeoJSON Point with [longitude, latitude]") }
        guard var properties = try fields.object("properties") else { throw AdapterFields.missing("\(pointer)/properties", "an object with timestamp") }
        guard let text = try properties.string("timestamp") else { throw AdapterFields.missing("\(pointer)/properties/timestamp", "an ISO 8601 date-time") }
        guard let timestamp = AdapterTime.iso8601(text) else { throw AdapterFields.wrongType(at: "\(pointer)/properties/timestamp", "an ISO 8601 date-time") }
        var fix = LocationFix(
            coordinate: Coordinate(latitude: latitude.double, longitude: longitude.double), timestamp: timestamp,
            horizontalAccuracy: try properties.number("horizontal_accuracy") ?? 0,
            speed: try properties.known("speed"), course: try properties.known("course"),
            altitude: try properties.number("altitude"), verticalAccuracy: try properties.known("vertical_accuracy"))
        let level = try properties.known("battery_level"), state = try properties.string("battery_state")
        let device = try properties.string("device_id").flatMap { $0.isEmpty ? nil : $0 } ?? fallbackDevice
        guard let device else {
            throw ProblemError(.badRequest, detail: "no device: set Overland's Device ID setting or add ?device_id= to the URL",
                               errors: [.init(parameter: "device_id", detail: "is required when the locations' device_id is empty")])
        }
        guard DeviceIdentifier.isValid(device) else { throw ProblemError.invalidDevice(pointer: "\(pointer)/properties/device_id") }
        fix.attributes = properties.rest
        if let state { fix.attributes["battery_state"] = .string(state) }
        WellKnownAttributes.record(batteryLevel: level, charging: state.flatMap { $0 == "unknown" ? nil : $0 == "charging" }, in: &fix.attributes)
        return (device, try LocationFix.adapted(fix, pointer: "\(pointer)/properties"))
    }
}
