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
            if index > 0 { json.raw(",") }
            // Keys sorted: `filteredBy` comes before `index`.
            if case .filtered(let rule) = fix.status {
                json.raw("{\"filteredBy\":"); json.string(rule.rawValue)
                json.raw(",\"index\":"); json.int(fix.index); json.raw(",\"status\":\"filtered\"}")
                continue
            }
            json.raw("{\"index\":"); json.int(fix.index)
            switch fix.status {
            case .accepted: json.raw(",\"status\":\"accepted\"}")
            case .duplicate: json.raw(",\"status\":\"duplicate\"}")
            case .late: json.raw(",\"reason\":\"outOfOrder\",\"status\":\"late\"}")
            case .rejected(let reason):
                json.raw(",\"reason\":"); json.string(reason.rawValue); json.raw(",\"status\":\"rejected\"}")
            case .filtered: break  // written above
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
}
