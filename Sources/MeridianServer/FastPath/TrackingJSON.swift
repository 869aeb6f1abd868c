import MeridianHTTP
import MapGeometry
import Timeline
import Tracking
import WireJSON

/// Tracking answers as the generated encoder writes them (keys sorted, compact, absent members
/// left out), written directly: ingest answers carry every event a batch caused, whole.
enum TrackingJSON {
    /// The IngestAnswer: `{"events":[…],"results":[…],"skipped":[…]}`.
    static func ingestAnswer(_ result: Tracker.IngestResult) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + 40 * result.results.count + 640 * result.events.count)
        json.raw("{\"events\":[")
        for (index, event) in result.events.enumerated() {
            if index > 0 { json.raw(",") }
            write(event, to: &json)
        }
        json.raw("],\"results\":[")
        for (index, fix) in result.results.enumerated() {
            json.raw(index > 0 ? ",{\"index\":" : "{\"index\":"); json.int(fix.index)
            switch fix.status {
            case .accepted: json.raw(",\"status\":\"accepted\"}")
            case .duplicate: json.raw(",\"status\":\"duplicate\"}")
            case .late: json.raw(",\"reason\":\"outOfOrder\",\"status\":\"late\"}")
            case .rejected(let reason):
                json.raw(",\"reason\":"); json.string(reason.rawValue); json.raw(",\"status\":\"rejected\"}")
            }
        }
        json.raw("],\"skipped\":[")
        for (index, skip) in result.skipped.enumerated() {
            json.raw(index > 0 ? ",{\"index\":" : "{\"index\":"); json.int(skip.index)
            json.raw(",\"reason\":"); json.string(skip.reason.rawValue)
            json.raw(",\"subscriptionId\":"); json.string(skip.subscriptionId)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }

    /// An Event.
    static func write(_ event: TrackingEvent, to json: inout JSONWriter) {
        json.raw("{\"deviceId\":"); json.string(event.deviceId)
        json.raw(",\"id\":"); json.string(event.id)
        if event.interpolated { json.raw(",\"interpolated\":true") }
        json.raw(",\"location\":"); write(event.location, to: &json)
        json.raw(",\"occurredAt\":"); json.string(event.occurredAt.rfc3339)
        if let previous = event.previousLocation { json.raw(",\"previousLocation\":"); write(previous, to: &json) }
        if let reason = event.reason { json.raw(",\"reason\":"); json.string(reason) }
        json.raw(",\"recordedAt\":"); json.string(event.recordedAt.rfc3339)
        json.raw(",\"sequence\":"); json.raw(String(event.sequence))
        json.raw(",\"subscriptionId\":"); json.string(event.subscriptionId)
        if let name = event.subscriptionName { json.raw(",\"subscriptionName\":"); json.string(name) }
        if !event.subscriptionProperties.isEmpty { json.raw(",\"subscriptionProperties\":"); json.value(.object(event.subscriptionProperties)) }
        json.raw(",\"type\":"); json.string(event.kind.rawValue)
        json.raw("}")
    }

    /// A Fix.
    static func write(_ fix: LocationFix, to json: inout JSONWriter) {
        var first = true
        func key(_ name: StaticString) {
            json.raw(first ? "{" : ",")
            json.raw(name)
            first = false
        }
        if let altitude = fix.altitude { key("\"altitude\":"); json.number(altitude) }
        key("\"coordinate\":{\"latitude\":"); json.number(fix.coordinate.latitude)
        json.raw(",\"longitude\":"); json.number(fix.coordinate.longitude); json.raw("}")
        if let course = fix.course { key("\"course\":"); json.number(course) }
        key("\"horizontalAccuracy\":"); json.number(fix.horizontalAccuracy)
        if let speed = fix.speed { key("\"speed\":"); json.number(speed) }
        key("\"timestamp\":"); json.string(fix.timestamp.rfc3339)
        if let vertical = fix.verticalAccuracy { key("\"verticalAccuracy\":"); json.number(vertical) }
        json.raw("}")
    }
}
