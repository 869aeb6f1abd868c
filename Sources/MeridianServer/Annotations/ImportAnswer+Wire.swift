import Annotations
import MeridianAPI
import Timeline
import WireJSON

// An import's answer on the wire, both encodings: the generated type's mapping and the direct
// writer of the import fast route, which must write the same bytes (WirePropertyTests).

extension Components.Schemas.ImportAnswer {
    /// Per-feature results with totals.
    init(_ results: GeoJSONImport.Results) {
        let summary = GeoJSONImport.Summary(results)
        self.init(
            results: results.enumerated().map { index, result in
                Components.Schemas.ImportResult(index: index, id: result.id.description, status: .init(result.status))
            },
            created: summary.created, updated: summary.updated, unchanged: summary.unchanged)
    }
}

/// The ImportAnswer as the generated encoder writes it (sorted keys, compact), written directly.
enum ImportAnswerWriter {
    /// The answer's bytes.
    static func write(_ results: GeoJSONImport.Results) -> [UInt8] {
        let summary = GeoJSONImport.Summary(results)
        var json = JSONWriter(capacity: 80 * results.count + 64)
        json.raw("{\"created\":"); json.int(summary.created)
        json.raw(",\"results\":[")
        for (index, result) in results.enumerated() {
            json.raw(index == 0 ? "{\"id\":" : ",{\"id\":"); json.string(result.id.description)
            json.raw(",\"index\":"); json.int(index)
            json.raw(",\"status\":"); json.string(result.status.rawValue)
            json.raw("}")
        }
        json.raw("],\"unchanged\":"); json.int(summary.unchanged)
        json.raw(",\"updated\":"); json.int(summary.updated)
        json.raw("}")
        return json.bytes
    }
}
