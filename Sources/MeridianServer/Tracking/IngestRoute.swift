import MeridianHTTP
import NIOCore
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// `POST /v1/devices/{deviceId}/locations` without Foundation's coders: a strict reader for the
/// documented body and ``TrackingJSON``'s writer for the answer. Anything the reader does not
/// take whole (an unknown or repeated field, a null, an unreadable timestamp, too many fixes, a
/// device id the contract refuses) goes to the generated handler, which explains it.
enum IngestRoute {
    static func answer(path: String, body: ByteBuffer, tenants: TenantSpace, metrics: ServerMetrics) async throws -> [UInt8]? {
        // The route table matched the prefix; other paths under it (a device, its history) are not ingest.
        guard path.hasSuffix(Paths.locationsSuffix) else { return nil }
        let deviceId = String(path.dropFirst(Paths.devicePrefix.count).dropLast(Paths.locationsSuffix.count))
        guard DeviceIdentifier.isValid(deviceId),
              let fixes = body.withUnsafeReadableBytes({ LocationBatchReader.read($0, limit: RequestRules.maxFixesPerRequest) })
        else { return nil }
        let result = try await APIHandler.ingest(fixes, deviceId: deviceId, tracking: tenants.current().tracking, metrics: metrics)
        return TrackingJSON.ingestAnswer(result)
    }
}

/// `{"locations":[Fix, …]}` and nothing else: each Fix `{"coordinate":{"latitude":n,"longitude":n},
/// "timestamp":"RFC 3339","horizontalAccuracy":n}` with optional `speed`, `course`, `altitude`,
/// `verticalAccuracy` and `attributes` (an object within ``LocationFix/problem(withAttributes:)``'s
/// limits), members in any order, each once. Nil for anything else.
enum LocationBatchReader {
    static func read(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [LocationFix]? {
        JSONValueParser.batch(bytes, key: Keys.locations, limit: limit, itemBytes: 80) { fix(&$0) }
    }

    private enum Keys {
        static let locations = Array("locations".utf8)
        static let coordinate = Array("coordinate".utf8), timestamp = Array("timestamp".utf8)
        static let horizontalAccuracy = Array("horizontalAccuracy".utf8), speed = Array("speed".utf8), course = Array("course".utf8)
        static let altitude = Array("altitude".utf8), verticalAccuracy = Array("verticalAccuracy".utf8)
        static let attributes = Array("attributes".utf8)
        static let latitude = Array("latitude".utf8), longitude = Array("longitude".utf8)
    }

    private static func fix(_ parser: inout JSONValueParser) -> LocationFix? {
        guard parser.consume(UInt8(ascii: "{")) else { return nil }
        var coordinate: Coordinate?, timestamp: Instant?, accuracy: Double?
        var speed: Double?, course: Double?, altitude: Double?, vertical: Double?, attributes: [String: JSONValue]?
        repeat {
            guard let key = parser.plainString(), parser.consume(UInt8(ascii: ":")) else { return nil }
            func once(_ slot: inout Double?) -> Bool {
                guard slot == nil, let value = parser.number() else { return false }
                slot = value
                return true
            }
            let read: Bool
            if JSONValueParser.equal(key, Keys.coordinate) {
                guard coordinate == nil, let value = Self.coordinate(&parser) else { return nil }
                (coordinate, read) = (value, true)
            } else if JSONValueParser.equal(key, Keys.timestamp) {
                guard timestamp == nil, let text = parser.plainString(), let instant = Instant(rfc3339: String(decoding: text, as: UTF8.self)) else { return nil }
                (timestamp, read) = (instant, true)
            } else if JSONValueParser.equal(key, Keys.horizontalAccuracy) { read = once(&accuracy) }
            else if JSONValueParser.equal(key, Keys.speed) { read = once(&speed) }
            else if JSONValueParser.equal(key, Keys.course) { read = once(&course) }
            else if JSONValueParser.equal(key, Keys.altitude) { read = once(&altitude) }
            else if JSONValueParser.equal(key, Keys.verticalAccuracy) { read = once(&vertical) }
            else if JSONValueParser.equal(key, Keys.attributes) {
                guard attributes == nil, let members = parser.value()?.objectValue, LocationFix.problem(withAttributes: members) == nil else { return nil }
                (attributes, read) = (members, true)
            }
            else { return nil }
            guard read else { return nil }
        } while parser.consume(UInt8(ascii: ","))
        guard parser.consume(UInt8(ascii: "}")), let coordinate, let timestamp, let accuracy else { return nil }
        return LocationFix(coordinate: coordinate, timestamp: timestamp, horizontalAccuracy: accuracy,
                           speed: speed, course: course, altitude: altitude, verticalAccuracy: vertical, attributes: attributes ?? [:])
    }

    /// `{"latitude":n,"longitude":n}` in either order. Not range-checked: a fix outside ±90/±180 is
    /// `rejected`, not refused.
    private static func coordinate(_ parser: inout JSONValueParser) -> Coordinate? {
        guard parser.consume(UInt8(ascii: "{")) else { return nil }
        var latitude: Double?, longitude: Double?
        for index in 0..<2 {
            guard let key = parser.plainString(), parser.consume(UInt8(ascii: ":")), let value = parser.number() else { return nil }
            if JSONValueParser.equal(key, Keys.latitude), latitude == nil { latitude = value }
            else if JSONValueParser.equal(key, Keys.longitude), longitude == nil { longitude = value }
            else { return nil }
            guard parser.consume(index == 0 ? UInt8(ascii: ",") : UInt8(ascii: "}")) else { return nil }
        }
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
