import MeridianHTTP
import MeridianAPI
import Annotations
import MapGeometry
import AnnotationIndex
import Timeline
import VectorTiles
import WireJSON

/// A tile's thinning as a Mapbox Vector Tile: layer `clusters` and layer `annotations`, a point
/// feature per item at its position in tile coordinates (extent 4096, y down, rounded to the
/// nearest unit), properties named as the thin answer names them.
enum ClusterTile {
    /// The version of what a tile holds, in its `ETag`: bump it when layers or properties change.
    static let version = 1
    static let clustersLayer = "clusters"
    static let annotationsLayer = "annotations"

    /// A feature's id: FNV-1a of the item's id text, shifted right by 11 bits, so the same item
    /// keeps its number in every tile and answer, and JavaScript's numbers (53 bits) hold it exactly.
    static func featureID(_ id: String) -> UInt64 {
        StableHash.fnv1a(id.utf8) >> 11
    }

    /// - Parameter annotations: the whole annotations the items name; one deleted since the index
    ///   answered is left out (as the thin answer leaves it out).
    ///   - weight, aggregateKinds: what each feature carries besides (``aggregateProperties(_:_:kinds:)``).
    static func encode(
        _ items: [(item: ThinnedItem, position: MapPoint)], in tile: Tile, annotations: [AnnotationID: Annotation],
        weight: String? = nil, aggregateKinds: [String: [AggregateKind]] = [:]
    ) -> [UInt8] {
        var clusters = VectorTileLayer(name: clustersLayer)
        var pins = VectorTileLayer(name: annotationsLayer)
        let extent = Double(VectorTile.defaultExtent)
        for (item, position) in items {
            let point = tile.tileCoordinates(of: position, extent: extent)
            let (x, y) = (Int32(point.x.rounded()), Int32(point.y.rounded()))
            switch item {
            case .cluster(let cluster):
                let id = cluster.id.description
                var properties: [(String, VectorTileValue)] = [("id", .string(id)), ("count", .int(Int64(cluster.count)))]
                if let zoom = cluster.expansionZoom { properties.append(("expansionZoom", .int(Int64(zoom)))) }
                if let identifier = cluster.clusteringIdentifier { properties.append(("clusteringIdentifier", .string(identifier))) }
                properties.append(("kindCounts", .string(kindCountsText(cluster.kindCounts))))
                properties += aggregateProperties(cluster.weight, cluster.aggregate, kinds: aggregateKinds)
                clusters.addPoint(id: featureID(id), x: x, y: y, properties: properties)
            case .annotation(let id, _):
                guard let annotation = annotations[id] else { continue }
                let content = annotation.content
                let text = id.description
                var properties: [(String, VectorTileValue)] = [
                    ("id", .string(text)), ("count", .int(1)), ("version", .int(Int64(annotation.version))),
                    ("displayPriority", .int(Int64(content.displayPriority))),
                ]
                if let title = content.title { properties.append(("title", .string(title))) }
                if let kind = content.kind { properties.append(("kind", .string(kind))) }
                if let identifier = content.clusteringIdentifier { properties.append(("clusteringIdentifier", .string(identifier))) }
                let own = ThinningAnswer.own(annotation, weight: weight, aggregates: aggregateKinds.keys)
                properties += aggregateProperties(own.weight, { own.aggregates[$0] }, kinds: aggregateKinds)
                pins.addPoint(id: featureID(text), x: x, y: y, properties: properties)
            }
        }
        return VectorTile(layers: [clusters, pins]).encoded()
    }

    /// A feature's `weight` and one number per aggregate asked for, named `<property>.<aggregate>`
    /// (left out when no member has a value).
    static func aggregateProperties(_ weight: Double?, _ aggregate: (String) -> PropertyAggregate?, kinds: [String: [AggregateKind]]) -> [(String, VectorTileValue)] {
        var properties: [(String, VectorTileValue)] = weight.map { [("weight", .double($0))] } ?? []
        for (property, asked) in kinds.sorted(by: { $0.key < $1.key }) {
            let aggregate = aggregate(property) ?? PropertyAggregate(nil)
            for kind in asked {
                guard let value = aggregate.value(kind) else { continue }
                properties.append(("\(property).\(kind.rawValue)", kind == .count ? .int(Int64(aggregate.count)) : .double(value)))
            }
        }
        return properties
    }

    /// The fields of each layer, as ``encode(_:in:annotations:)`` writes them, by TileJSON type.
    static let fields: [(layer: String, description: String, fields: [String: String])] = [
        (clustersLayer, "Clusters of annotations: the thin answer's clusters whose centroid is in the tile.",
         ["id": "String", "count": "Number", "expansionZoom": "Number", "clusteringIdentifier": "String", "kindCounts": "String"]),
        (annotationsLayer, "Annotations the thinning shows one by one.",
         ["id": "String", "count": "Number", "version": "Number", "displayPriority": "Number", "title": "String", "kind": "String",
          "clusteringIdentifier": "String"]),
    ]

    /// The tile set as TileJSON 3.0.0: the tiles at `template`, zooms of the thinning grids, the Mercator world.
    static func tileJSON(template: String) -> Components.Schemas.TileJSON {
        let world = Mercator.maxLatitude
        return .init(
            tilejson: ._3_0_0, name: "Meridian clusters",
            description: "The thinning of the caller's annotations per tile: clusters and the annotations shown alone.",
            format: "pbf", tiles: [template],
            minzoom: ThinningGrid.zoomLevels.lowerBound, maxzoom: ThinningGrid.zoomLevels.upperBound,
            bounds: [-180, -world, 180, world],
            vectorLayers: fields.map { layer in
                .init(id: layer.layer, description: layer.description, minzoom: ThinningGrid.zoomLevels.lowerBound,
                      maxzoom: ThinningGrid.zoomLevels.upperBound, fields: .init(additionalProperties: layer.fields))
            })
    }

    /// `{"city":3,"town":9}`: vector tiles have no maps, so the counts travel as JSON text.
    static func kindCountsText(_ counts: [String: Int]) -> String {
        var json = JSONWriter()
        json.value(.object(counts.mapValues { .number(Double($0)) }))
        return json.text
    }
}
