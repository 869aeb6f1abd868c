// Issue 17's in-process figures for the query index, as JSON on stdout, on the database and the
// queries Benchmarks/scripts/bench-queries.py measures over HTTP in the same run:
//
//     QueryBench DATABASE QUERIES_JSON
//
// DATABASE is loaded as `meridian serve` loads it (the thinning follower, which builds the point
// index beside the thinning index). QUERIES_JSON is {"warmup": N, "nearest": [[lon, lat], …],
// "polygons": [CQL2-JSON filter, …]}. Per query, seconds: `index` is the point index alone (10
// nearest pulled from the search; the ids inside a filter's box that its spatial test admits),
// `verb` is the whole query as the HTTP handler calls it (AnnotationQueries: index, rows from SQLite,
// the filter on each row), without HTTP.
import Annotations
import Foundation
import MapGeometry
import Storage
import AnnotationIndex
import WireJSON

struct Queries: Decodable {
    var warmup: Int
    var nearest: [[Double]]
    var polygons: [AnyJSON]
}

/// Any JSON, kept as its text so the filter reader sees what the server would.
struct AnyJSON: Decodable {
    var value: Any
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let object = try? container.decode([String: AnyJSON].self) { value = object.mapValues(\.value) }
        else if let array = try? container.decode([AnyJSON].self) { value = array.map(\.value) }
        else if let number = try? container.decode(Double.self) { value = number }
        else if let text = try? container.decode(String.self) { value = text }
        else if let flag = try? container.decode(Bool.self) { value = flag }
        else { value = NSNull() }
    }
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let began = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - began
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func filter(_ json: Any) throws -> Filter {
    let bytes = try JSONSerialization.data(withJSONObject: json)
    guard let value = bytes.withUnsafeBytes({ JSONValueParser.parse($0) }) else { throw CocoaError(.coderReadCorrupt) }
    return try Filter(json: value)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: QueryBench DATABASE QUERIES_JSON\n".utf8))
    exit(2)
}
let queries = try JSONDecoder().decode(Queries.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
let store = try await SQLiteAnnotationStore.open(path: arguments[1])
var follower: IndexFollower?
let load = try await seconds { follower = try await IndexFollower(store: store) }
let points = follower!.points
let verbs = AnnotationQueries(follower: follower!, store: store)
let filters = try queries.polygons.map { try filter($0.value) }

var nearestIndex: [Double] = [], nearestVerb: [Double] = [], polygonIndex: [Double] = [], polygonVerb: [Double] = []
var polygonCounts: [Int] = []
for (i, pair) in queries.nearest.enumerated() {
    let origin = Coordinate(latitude: pair[1], longitude: pair[0])
    let index = await seconds {
        var search = points.nearest(to: origin)
        for _ in 0..<10 { _ = search.next() }
    }
    let verb = try await seconds { _ = try await verbs.nearest(to: origin, limit: 10, maxDistance: nil, filter: nil) }
    if i >= queries.warmup { nearestIndex.append(index); nearestVerb.append(verb) }
}
for (i, filter) in filters.enumerated() {
    var count = 0
    let index = await seconds { count = points.references(in: filter.requiredBounds!, admitting: filter.admits).count }
    let verb = try await seconds { _ = try await verbs.page(matching: AnnotationQuery(limit: 1000, filter: filter)) }
    if i >= queries.warmup { polygonIndex.append(index); polygonVerb.append(verb); polygonCounts.append(count) }
}
let answer: [String: Any] = [
    "load": load, "points": points.count,
    "nearest": ["index": nearestIndex, "verb": nearestVerb],
    "polygon": ["index": polygonIndex, "verb": polygonVerb, "counts": polygonCounts],
]
FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: answer))
