import MapGeometry
import MeridianAPI
import AnnotationIndex
import Timeline
import WireJSON

// A cluster on the wire, both encodings: the generated type's mapping and the direct writer of
// `GET /v1/clusters/{id}` and thin answers, which must write the same bytes (WirePropertyTests).

extension Components.Schemas.Cluster {
    /// The cluster as the generated handlers answer it (``ClusterJSON`` writes the same bytes).
    init(_ cluster: ThinnedCluster, aggregateKinds: [String: [AggregateKind]]) {
        self.init(
            id: cluster.id.description, count: cluster.count, coordinate: .init(Mercator.coordinate(for: cluster.centroid)),
            bounds: .init(Region(cluster.bounds)), expansionZoom: cluster.expansionZoom,
            clusteringIdentifier: cluster.clusteringIdentifier, kindCounts: .init(additionalProperties: cluster.kindCounts),
            representative: cluster.representative.description, weight: cluster.weight,
            aggregates: .init(cluster.aggregate, kinds: aggregateKinds))
    }
}

extension Components.Schemas.ItemAggregates {
    /// The aggregates asked for (nil when none were), each as ``PropertyAggregate/value(_:)`` says.
    init?(_ aggregate: (String) -> PropertyAggregate?, kinds: [String: [AggregateKind]]) {
        guard !kinds.isEmpty else { return nil }
        self.init(additionalProperties: kinds.reduce(into: [:]) { values, entry in
            let aggregate = aggregate(entry.key) ?? PropertyAggregate(nil)
            let has = Set(entry.value)
            func value(_ kind: AggregateKind) -> Double? { has.contains(kind) ? aggregate.value(kind) : nil }
            values[entry.key] = .init(
                count: value(.count).map(Int.init), sum: value(.sum), min: value(.min), max: value(.max), mean: value(.mean))
        })
    }
}

/// Clusters as the generated encoder writes them (sorted keys, compact, absent optionals left out), written directly.
enum ClusterJSON {
    /// One cluster as `GET /v1/clusters/{id}` answers it.
    static func write(_ cluster: ThinnedCluster, aggregateKinds: [String: [AggregateKind]]) -> [UInt8] {
        var json = JSONWriter(capacity: 480)
        write(cluster, screenPoint: nil, aggregateKinds: aggregateKinds, to: &json)
        return json.bytes
    }

    /// A cluster's fields; with a screen point, as an item of a thinning answer.
    static func write(_ cluster: ThinnedCluster, screenPoint point: ScreenPoint?, aggregateKinds: [String: [AggregateKind]], to json: inout JSONWriter) {
        let bounds = Region(cluster.bounds)
        json.raw("{")
        if writeAggregates(cluster.aggregate, kinds: aggregateKinds, to: &json) { json.raw(",") }
        json.raw("\"bounds\":{\"center\":"); ThinAnswerWriter.write(bounds.center, to: &json)
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
        if let weight = cluster.weight { json.raw(",\"weight\":"); json.number(weight) }
        json.raw("}")
    }

    /// `"aggregates":{…}` with the kinds asked for per property, keys sorted; false (nothing
    /// written) when none were asked for.
    static func writeAggregates(_ aggregate: (String) -> PropertyAggregate?, kinds: [String: [AggregateKind]], to json: inout JSONWriter) -> Bool {
        guard !kinds.isEmpty else { return false }
        json.raw("\"aggregates\":{")
        for (p, (property, asked)) in kinds.sorted(by: { $0.key < $1.key }).enumerated() {
            let aggregate = aggregate(property) ?? PropertyAggregate(nil)
            if p > 0 { json.raw(",") }
            json.string(property); json.raw(":{")
            var first = true
            for kind in asked.sorted() {
                guard let value = aggregate.value(kind) else { continue }
                if !first { json.raw(",") }
                first = false
                json.string(kind.rawValue); json.raw(":")
                if kind == .count { json.int(aggregate.count) } else { json.number(value) }
            }
            json.raw("}")
        }
        json.raw("}")
        return true
    }
}
