import MeridianHTTP
import Access
import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Storage
import AnnotationIndex
import Timeline

/// The map page, its base map, and cluster tiles (tags Map and Thinning).
extension APIHandler {
    func getPage(_ input: Operations.GetPage.Input) async throws -> Operations.GetPage.Output {
        .ok(.init(body: .html(HTTPBody(try web.indexHTML()))))
    }

    func getBaseMapInfo(_ input: Operations.GetBaseMapInfo.Input) async throws -> Operations.GetBaseMapInfo.Output {
        guard let file = web.baseMap else { throw web.noBaseMap }
        let metadata = file.metadata
        let zoom = { (key: String, fallback: Int) in metadata[key].flatMap { Int($0) } ?? fallback }
        let bounds = metadata["bounds"].map { $0.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        return .ok(.init(body: .json(.init(
            tilejson: ._3_0_0, name: metadata["name"], format: metadata["format"], tiles: [RequestOrigin.absolute(WebPage.baseMapTileTemplate)],
            minzoom: zoom("minzoom", 0), maxzoom: zoom("maxzoom", 0), bounds: bounds?.count == 4 ? bounds : nil,
            attribution: metadata["attribution"]))))
    }

    func getClusterTileInfo(_ input: Operations.GetClusterTileInfo.Input) async throws -> Operations.GetClusterTileInfo.Output {
        .ok(.init(body: .json(ClusterTile.tileJSON(template: RequestOrigin.absolute(Paths.clusterTileTemplate)))))
    }

    func getBaseMapTile(_ input: Operations.GetBaseMapTile.Input) async throws -> Operations.GetBaseMapTile.Output {
        guard let file = web.baseMap else { throw web.noBaseMap }
        let (z, x, y) = (input.path.z, input.path.x, input.path.y)
        let tile = try Self.tile(z: z, x: x, y: y, zooms: WebPage.baseMapZooms)
        guard let data = try await file.tile(z: tile.z, x: tile.x, y: tile.y) else {
            throw ProblemError(.notFound, detail: "the base map has no tile \(z)/\(x)/\(y)")
        }
        // The bytes name themselves: the same tile keeps its tag across restarts and files.
        let tag = TileTag(String(StableHash.fnv1a(data), radix: 16))
        if tag.isHeld(by: input.headers.ifNoneMatch) {
            return .notModified(.init(headers: .init(eTag: tag.header, cacheControl: WebPage.baseMapCacheControl)))
        }
        let headers = Operations.GetBaseMapTile.Output.Ok.Headers(eTag: tag.header, cacheControl: WebPage.baseMapCacheControl)
        let body = HTTPBody(data)
        return switch file.metadata["format"] {
        case "jpg", "jpeg": .ok(.init(headers: headers, body: .jpeg(body)))
        case "webp": .ok(.init(headers: headers, body: .imageWebp(body)))
        default: .ok(.init(headers: headers, body: .png(body)))
        }
    }

    /// The tile a path names: z within `zooms`, x and y within 0…2^(last zoom) − 1 (the
    /// contract's bounds; else 422 at the parameter); x or y past 2^z − 1 is no tile (404).
    static func tile(z: Int, x: Int, y: Int, zooms: ClosedRange<Int>) throws(ProblemError) -> Tile {
        var errors: [ProblemDetails.FieldError] = []
        if !zooms.contains(z) { errors.append(.init(parameter: "z", detail: "must be \(zooms.lowerBound)…\(zooms.upperBound), got \(z)")) }
        let last = Tile.count(atZoom: zooms.upperBound) - 1
        for (name, value) in [("x", x), ("y", y)] where !(0...last).contains(value) {
            errors.append(.init(parameter: name, detail: "must be 0…\(last), got \(value)"))
        }
        guard errors.isEmpty else { throw ProblemError.invalid(errors) }
        guard x < Tile.count(atZoom: z), y < Tile.count(atZoom: z) else {
            throw ProblemError(.notFound, detail: "there is no tile \(z)/\(x)/\(y): x and y run 0…\(Tile.count(atZoom: z) - 1) at zoom \(z)")
        }
        return Tile(z: z, x: x, y: y)
    }

    func getClusterTile(_ input: Operations.GetClusterTile.Input) async throws -> Operations.GetClusterTile.Output {
        let tile = try Self.tile(z: input.path.z, x: input.path.x, y: input.path.y, zooms: ThinningGrid.zoomLevels)
        let query = input.query
        let matching = try RequestFilter.query(query.filter, lang: query.filterLang?.rawValue)
        let filter = ThinningFilter(
            kinds: query.kinds.map(Set.init), clusteringIdentifiers: query.clusteringIdentifiers.map(Set.init),
            minDisplayPriority: query.minDisplayPriority, matching: matching)
        // The thin endpoint's rules for a 256 × 256 view of exactly the tile (zoom z); its errors
        // name the query parameters.
        let side = tile.mapRect.size.width
        let view = Viewport(size: ScreenSize(width: 256, height: 256), heading: 0, center: tile.mapRect.mid, zoomScale: 256 / side)
        let thinning: ThinningQuery
        let aggregates = try AggregateParameter.kinds(query.aggregate)
        do {
            thinning = try ThinningQuery(
                viewport: { view }, cellSize: query.cellSize, limit: nil, filter: filter, maxZoom: query.maxZoom, weight: query.weight,
                aggregates: aggregates.mapValues(Set.init))
        } catch {
            // The body's `aggregates` is the query's `aggregate`.
            throw ProblemError.invalid(error.errors.map { .init(parameter: $0.path.first == "aggregates" ? "aggregate" : $0.path.first, detail: $0.message) }, total: error.total)
        }
        let tenant = try await tenants.current()
        let follower = try await tenant.thinningFollower(for: matching)
        let index = try await follower.current()
        // The tenant, its index position (read before the items: the tag may be older than the
        // tile, never newer) and the tile format's version: a browser that changes keys, a restored
        // database or a new encoding never revalidates another answer.
        let tenantName = try RequestScope.current().tenant.description
        let tag = TileTag("\(String(StableHash.fnv1a(tenantName.utf8), radix: 16)).\(index.sequence).\(ClusterTile.version)")
        if tag.isHeld(by: input.headers.ifNoneMatch) {
            return .notModified(.init(headers: .init(eTag: tag.header, cacheControl: WebPage.clusterTileCacheControl, vary: "Authorization")))
        }
        let items = try await follower.read(thinning.options, admission: tenant.heavyQueries) { index throws(ThinningIndex.MissingColumn) in
            try index.items(in: tile, grid: thinning.grid, filter: thinning.filter, options: thinning.options, limit: ThinningQuery.limits.upperBound)
        }
        let annotations = try await tenant.annotations.annotations(ids: items.compactMap { if case .annotation(let id, _) = $0.item { id } else { nil } })
        let bytes = ClusterTile.encode(items, in: tile, annotations: annotations, weight: thinning.options.weight, aggregateKinds: thinning.aggregateKinds)
        return .ok(.init(
            headers: .init(eTag: tag.header, cacheControl: WebPage.clusterTileCacheControl, vary: "Authorization"),
            body: .applicationVnd_mapboxVectorTile(HTTPBody(bytes))))
    }
}

/// A tile's entity tag: the opaque text, sent quoted, compared weakly with `If-None-Match`.
struct TileTag {
    let opaque: String
    init(_ opaque: String) { self.opaque = opaque }
    var header: String { "\"\(opaque)\"" }
    func isHeld(by ifNoneMatch: String?) -> Bool {
        ifNoneMatch.flatMap(EntityTagCondition.init)?.matches(opaque: opaque) == true
    }
}
