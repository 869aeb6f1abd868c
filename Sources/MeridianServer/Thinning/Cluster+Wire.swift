import MapGeometry
import MeridianAPI
import AnnotationIndex
import Timeline
import WireJSON

// A cluster on the wire, both encodings: the generated type's mapping and the direct writer of
// `GET /v1/clusters/{id}` and thin answers, which must write the same bytes (WirePropertyTests).

extension Components.Schemas.Cluster {
    /// The cluster as the generated handlers answer it (``ClusterJSON`` writes the same bytes).
    init(_ cluster: ThinnedCluster) {
        self.init(
            id: cluster.id.description, count: cluster.count, coordinate: .init(Mercator.coordinate(for: cluster.centroid)),
            bounds: .init(Region(cluster.bounds)), expansionZoom: cluster.expansionZoom,
            clusteringIdentifier: cluster.clusteringIdentifier, kindCounts: .init(additionalProperties: cluster.kindCounts),
            representative: cluster.representative.description)
    }
}

/// Clusters as the generated encoder writes them (sorted keys, compact, absent optionals left out), written directly.
enum ClusterJSON {
    /// One cluster as `GET /v1/clusters/{id}` answers it.
    static func write(_ cluster: ThinnedCluster) -> [UInt8] {
        var json = JSONWriter(capacity: 480)
        write(cluster, screenPoint: nil, to: &json)
        return json.bytes
    }

    /// A cluster's fields; with a screen point, as an item of a thinning answer.
    static func write(_ cluster: ThinnedCluster, screenPoint point: ScreenPoint?, to json: inout JSONWriter) {
        let bounds = Region(cluster.bounds)
        json.raw("{\"bounds\":{\"center\":"); ThinAnswerWriter.write(bounds.center, to: &json)
        json.raw(",\"span\":{\"latitudeDelta\":"); json.number(bounds.span.latitudeDelta)
        json.raw(",\"longitudeDelta\":"); json.number(bounds.span.longitudeDelta)
        json.raw("}}")
        if let identifier = cluster.clusteringIdentifier { json.raw(",\"clusteringIdentifier\":"); json.string(identifier) }
        json.raw(",\"coordinate\":"); ThinAnswerWriter.write(Mercator.coordinate(for: cluster.centroid), to: &json)
        json.raw(",\"count\":"); json.int(cluster.count)
        if let zoom = cluster.expansionZoom { json.raw(",\"expansionZoom\":"); json.int(zoom) }
        json.raw(",\"id\":"); json.string(cluster.id.description)
        json.raw(",\"kindCounts\":{")
        var first = true
        cluster.kinds.forEachSorted { kind, count in
            if !first { json.raw(",") }
            first = false
            json.string(kind); json.raw(":"); json.int(count)
        }
        json.raw("},\"representative\":"); json.string(cluster.representative.description)
        if let point {
            json.raw(",\"screenPoint\":"); ThinAnswerWriter.write(point, to: &json)
            json.raw(",\"type\":\"cluster\"")
        }
        json.raw("}")
    }
}
