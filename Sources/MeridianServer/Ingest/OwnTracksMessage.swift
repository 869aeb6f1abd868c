import MeridianHTTP
import HTTPTypes
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// An OwnTracks HTTP-mode payload (the booklet's `tech/json`): a `_type: location` message is a
/// fix; any other `_type`, and the empty payload the apps post when a friend is deleted, is
/// acknowledged and ignored.
///
/// `lat`, `lon` (degrees) and `tst` (Unix seconds) are required; `acc` (metres) is the horizontal
/// accuracy, 0 when absent (the iOS app leaves it out when Core Location's is negative, unknown:
/// Traccar reads it so too, and a fix without accuracy passes an accuracy limit), `alt` the altitude, `vac` the vertical accuracy,
/// `cog` the course, `vel` (km/h) the speed in m/s, `batt` (percent; -1 unknown) the
/// `batteryLevel` 0–1, and `bs` (2 charging, 1 unplugged, 3 full) sets `charging`. Every other
/// member (`tid`, `t`, `conn`, `topic`, `SSID`, `inregions`, …, and `bs` itself) is an attribute under its own name.
enum OwnTracksMessage {
    /// The fix of a location message and its `topic`; nil for a message that is not a location.
    static func fix(_ body: UnsafeRawBufferPointer) throws(ProblemError) -> (fix: LocationFix, topic: String?)? {
        guard body.contains(where: { !Self.isWhitespace($0) }) else { return nil }
        guard var fields = AdapterFields(JSONValueParser.parse(body), at: "") else {
            throw ProblemError(.badRequest, detail: "the body must be an OwnTracks JSON message (an object with _type)")
        }
        guard let type = try fields.string("_type") else { throw AdapterFields.missing("/_type", "the message type") }
        guard type == "location" else { return nil }
        let latitude = try fields.requiredNumber("lat"), longitude = try fields.requiredNumber("lon")
        let seconds = try fields.requiredNumber("tst")
        guard let timestamp = Instant(unixSeconds: seconds) else { throw AdapterFields.wrongType(at: "/tst", "Unix seconds of a year 0001…9999") }
        var fix = LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: timestamp,
            horizontalAccuracy: try fields.number("acc") ?? 0,
            speed: try fields.number("vel").map { SpeedUnits.metresPerSecond(kilometresPerHour: $0) },
            course: try fields.number("cog"), altitude: try fields.number("alt"), verticalAccuracy: try fields.number("vac"))
        let battery = try fields.number("batt")
        fix.attributes = fields.rest
        // `bs`: 1 unplugged, 2 charging, 3 full (0 unknown).
        let charging: Bool? = if case .number(let code)? = fix.attributes["bs"], [1, 2, 3].contains(code.double) { code.double == 2 } else { nil }
        WellKnownAttributes.record(batteryLevel: WellKnownAttributes.level(percent: battery), charging: charging, in: &fix.attributes)
        let topicText: String? = if case .string(let text)? = fix.attributes["topic"] { text } else { nil }
        return (try LocationFix.adapted(fix, pointer: ""), topicText)
    }

    /// The device id `{user}:{device}`: the user from the Basic user name, else `X-Limit-U`, else
    /// the `u` query parameter; the device from `X-Limit-D`, else `d`; either, when missing, from
    /// the message's `topic` (`owntracks/{user}/{device}`, which iOS sends instead of the headers).
    static func deviceId(user: String?, device: String?, topic: String?) throws(ProblemError) -> String {
        let parts = topic?.split(separator: "/", omittingEmptySubsequences: false) ?? []
        let fromTopic: (String, String)? = parts.count == 3 && parts[0] == "owntracks" ? (String(parts[1]), String(parts[2])) : nil
        guard let user = user ?? fromTopic?.0, let device = device ?? fromTopic?.1 else {
            throw ProblemError(.badRequest, detail: "no device: set the user name (Basic user or X-Limit-U) and the device id (X-Limit-D) in OwnTracks' Identification settings",
                               errors: [.init(parameter: user == nil ? "X-Limit-U" : "X-Limit-D", detail: "is required")])
        }
        return try DeviceIdentifier.checked("\(user):\(device)", parameter: "X-Limit-D")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}

extension Instant {
    /// Unix seconds (fractions to the microsecond); nil when not finite or outside the years 0001…9999.
    init?(unixSeconds seconds: Double) {
        let microseconds = (seconds * 1_000_000).rounded()
        guard microseconds.isFinite, abs(microseconds) < 9.2e18, Instant.utcWritable.contains(Int64(microseconds)) else { return nil }
        self.init(microseconds: Int64(microseconds))
    }
}
