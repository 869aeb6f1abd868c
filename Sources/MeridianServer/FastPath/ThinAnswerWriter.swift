import MeridianHTTP
import Annotations
import Foundation
import MapGeometry
import Thinning
import Timeline
import WireJSON

/// Writes a thinning answer as JSON directly: the same bytes the generated encoder writes (sorted
/// keys, no spaces, times in RFC 3339 with milliseconds, absent optionals left out), about ten
/// times faster than Foundation's encoder on a world view of 200 clusters.
enum ThinAnswerWriter {
    static func write(_ answer: ThinningAnswer) -> [UInt8] {
        var json = JSONWriter(capacity: 256 + answer.result.items.count * 480)
        let viewport = answer.viewport, rect = viewport.visibleMapRect
        json.raw("{\"cellSize\":"); json.int(answer.result.grid.cellSize)
        json.raw(",\"gridZoom\":"); json.int(answer.result.grid.zoom)
        json.raw(",\"items\":[")
        var first = true
        for item in answer.result.items {
            switch item {
            case .annotation(let id, let point):
                guard let annotation = answer.annotations[id] else { continue }
                if !first { json.raw(",") }
                json.raw("{\"annotation\":"); AnnotationJSON.write(annotation, to: &json)
                json.raw(",\"screenPoint\":"); write(viewport.screenPoint(for: point), to: &json)
                json.raw(",\"type\":\"annotation\"}")
            case .cluster(let cluster):
                if !first { json.raw(",") }
                write(cluster, screenPoint: viewport.screenPoint(for: cluster.centroid), to: &json)
            }
            first = false
        }
        json.raw("],\"truncated\":"); json.bool(answer.result.truncated)
        json.raw(",\"visibleMapRect\":{\"origin\":{\"x\":"); json.number(rect.origin.x); json.raw(",\"y\":"); json.number(rect.origin.y)
        json.raw("},\"size\":{\"height\":"); json.number(rect.size.height); json.raw(",\"width\":"); json.number(rect.size.width)
        json.raw("}},\"zoomLevel\":"); json.number(viewport.zoomLevel)
        json.raw("}")
        return json.bytes
    }

    /// One cluster as `GET /v1/clusters/{id}` answers it.
    static func write(_ cluster: ThinnedCluster) -> [UInt8] {
        var json = JSONWriter(capacity: 480)
        write(cluster, screenPoint: nil, to: &json)
        return json.bytes
    }

    /// A cluster's fields; with a screen point, as an item of a thinning answer.
    private static func write(_ cluster: ThinnedCluster, screenPoint point: ScreenPoint?, to json: inout JSONWriter) {
        let bounds = Region(cluster.bounds)
        json.raw("{\"bounds\":{\"center\":"); write(bounds.center, to: &json)
        json.raw(",\"span\":{\"latitudeDelta\":"); json.number(bounds.span.latitudeDelta)
        json.raw(",\"longitudeDelta\":"); json.number(bounds.span.longitudeDelta)
        json.raw("}}")
        if let identifier = cluster.clusteringIdentifier { json.raw(",\"clusteringIdentifier\":"); json.string(identifier) }
        json.raw(",\"coordinate\":"); write(Mercator.coordinate(for: cluster.centroid), to: &json)
        json.raw(",\"count\":"); json.int(cluster.count)
        if let zoom = cluster.expansionZoom { json.raw(",\"expansionZoom\":"); json.int(zoom) }
        json.raw(",\"id\":"); json.string(cluster.id.description)
        json.raw(",\"kindCounts\":{")
        for (index, (kind, count)) in cluster.kindCounts.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { json.raw(",") }
            json.string(kind); json.raw(":"); json.int(count)
        }
        json.raw("},\"representative\":"); json.string(cluster.representative.description)
        if let point {
            json.raw(",\"screenPoint\":"); write(point, to: &json)
            json.raw(",\"type\":\"cluster\"")
        }
        json.raw("}")
    }

    static func write(_ value: Coordinate, to json: inout JSONWriter) {
        json.raw("{\"latitude\":"); json.number(value.latitude); json.raw(",\"longitude\":"); json.number(value.longitude); json.raw("}")
    }

    private static func write(_ point: ScreenPoint, to json: inout JSONWriter) {
        json.raw("{\"x\":"); json.number(point.x); json.raw(",\"y\":"); json.number(point.y); json.raw("}")
    }
}
