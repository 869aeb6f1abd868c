import Foundation
import Geodesy
import HTTPTypes
import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import WireJSON

// What the /ogc reads share for Part 2 and `f=html`: which representation was asked for, the
// page of a document, the CRS parameters read and applied.

extension APIHandler {
    /// Whether the HTML page is wanted: `f=html`, or without `f` an `Accept` whose first choice
    /// (after ``NegotiationMiddleware``) is `text/html`.
    static func wantsHTML<T: AcceptableProtocol>(_ format: String?, _ accept: [AcceptHeaderContentType<T>]) -> Bool {
        if let format { return format == "html" }
        return accept.sortedByQuality().first?.contentType.rawValue == "text/html"
    }

    /// The HTML page of `document` (any document `/ogc` answers as JSON).
    static func page(_ resource: OGCPage.Resource, _ document: some Encodable) throws -> HTTPBody {
        let json = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(document))
        return HTTPBody(OGCPage(resource: resource, json: json, path: OGCRequest.current?.path ?? OGCRequest.root).render())
    }

    /// The `bbox` and `filter` of an items request moved into CRS84 from `bbox-crs` and `filter-crs`.
    static func inCRS84(bbox: String?, bboxCRS: String?, filter: String?, filterLang: String?, filterCRS: String?, pool: CRSTransformerPool) throws -> (bbox: String?, filter: String?) {
        var (bbox, filter) = (bbox, filter)
        let boxCRS = try OGCCRS.named(bboxCRS, parameter: "bbox-crs")
        if let text = bbox, boxCRS != .crs84 {
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !numbers.contains(nil) else {
                throw ProblemError(.badRequest, detail: "bbox cannot be read", errors: [.init(parameter: "bbox", detail: "must be 4 or 6 comma-separated numbers in \(boxCRS.uri)")])
            }
            bbox = try boxCRS.boxInCRS84(numbers.compactMap { $0 }, parameter: "bbox", with: pool).map(OGCCRS.plainNumber).joined(separator: ",")
        }
        let literalCRS = try OGCCRS.named(filterCRS, parameter: "filter-crs")
        if let text = filter, literalCRS != .crs84 {
            if filterLang == "cql2-json" {
                // A filter that is not JSON is left for the filter's reader to refuse.
                if let json = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
                    var writer = JSONWriter()
                    writer.value(try literalCRS.filterInCRS84(json: json, with: pool))
                    filter = writer.text
                }
            } else {
                filter = try literalCRS.filterInCRS84(text: text, with: pool)
            }
        }
        return (bbox, filter)
    }

    /// `feature` (its `geometry` member) in `crs`.
    static func feature(_ feature: JSONValue, in crs: OGCCRS, pool: CRSTransformerPool) throws -> JSONValue {
        guard crs != .crs84, case .object(var members) = feature, let geometry = members["geometry"] else { return feature }
        members["geometry"] = try crs.geometry(geometry, with: pool)
        return .object(members)
    }
}
