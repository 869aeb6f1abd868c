import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI

/// Thinning: annotations plus clusters for a viewport, and clusters by id (tag Thinning).
extension APIHandler {
    func thinAnnotations(_ input: Operations.ThinAnnotations.Input) async throws -> Operations.ThinAnnotations.Output {
        switch input.body {
        case .json(let body):
            let answer = try await ThinningAnswer(ThinningRequest(body), thinning: thinning, store: annotations)
            let viewport = answer.viewport
            let items: [Components.Schemas.ThinItem] = answer.result.items.compactMap { item in
                switch item {
                case .annotation(let id, let point):
                    guard let annotation = answer.annotations[id] else { return nil }
                    return .annotation(.init(_type: "annotation", annotation: .init(annotation), screenPoint: .init(viewport.screenPoint(for: point))))
                case .cluster(let cluster):
                    let wire = Components.Schemas.Cluster(cluster)
                    return .cluster(.init(
                        _type: "cluster", id: wire.id, count: wire.count, coordinate: wire.coordinate, bounds: wire.bounds,
                        expansionZoom: wire.expansionZoom, clusteringIdentifier: wire.clusteringIdentifier,
                        kindCounts: .init(additionalProperties: wire.kindCounts.additionalProperties),
                        representative: wire.representative, screenPoint: .init(viewport.screenPoint(for: cluster.centroid))))
                }
            }
            return .ok(.init(body: .json(.init(
                zoomLevel: viewport.zoomLevel, gridZoom: answer.result.grid.zoom, cellSize: answer.result.grid.cellSize,
                visibleMapRect: .init(viewport.visibleMapRect), truncated: answer.result.truncated, items: items))))
        }
    }

    func getCluster(_ input: Operations.GetCluster.Input) async throws -> Operations.GetCluster.Output {
        let id = try clusterID(input.path.clusterId)
        guard let cluster = try await thinning.current().cluster(id) else { throw clusterGone(input.path.clusterId) }
        return .ok(.init(body: .json(.init(cluster))))
    }

    func getClusterLeaves(_ input: Operations.GetClusterLeaves.Input) async throws -> Operations.GetClusterLeaves.Output {
        let id = try clusterID(input.path.clusterId)
        let limit = input.query.limit ?? 100
        guard (1...1000).contains(limit) else {
            throw ProblemError.invalid([.init(parameter: "limit", detail: "must be 1…1000, got \(limit)")])
        }
        var cursor: LeafCursor?
        if let text = input.query.cursor {
            guard let parsed = LeafCursor(text) else {
                throw ProblemError(.badRequest, detail: "cursor is not one this server issued", errors: [.init(parameter: "cursor", detail: "must be a nextCursor of this cluster")])
            }
            cursor = parsed
        }
        guard let page = try await thinning.current().leaves(of: id, after: cursor, limit: limit) else {
            throw clusterGone(input.path.clusterId)
        }
        let found = try await annotations.annotations(ids: page.ids)
        return .ok(.init(body: .json(.init(
            annotations: page.ids.compactMap { found[$0].map(Components.Schemas.Annotation.init) },
            nextCursor: page.next?.description))))
    }

    private func clusterID(_ text: String) throws -> ClusterID {
        guard let id = ClusterID(text) else {
            throw ProblemError(.badRequest, detail: "clusterId is not a cluster id", errors: [.init(parameter: "clusterId", detail: "must be an id from a thinning answer")])
        }
        return id
    }

    private func clusterGone(_ text: String) -> ProblemError {
        ProblemError(.notFound, detail: "no cluster with id \(text): that place now holds fewer than two members")
    }
}

/// A thinning answer before it is written: the index's items and the whole annotations they name.
struct ThinningAnswer {
    var viewport: Viewport
    var result: ThinningResult
    /// The annotations shown by themselves, read after the index; one deleted in between is absent and left out.
    var annotations: [AnnotationID: Annotation]

    init(_ request: ThinningRequest, thinning: ThinningFollower, store: some AnnotationStore) async throws {
        viewport = request.viewport
        result = try await thinning.current().thin(
            request.viewport.visibleMapRect, grid: request.grid, filter: request.filter, limit: request.limit)
        annotations = try await store.annotations(ids: result.items.compactMap { if case .annotation(let id, _) = $0 { id } else { nil } })
    }
}

/// A thinning request, validated: every bad field is listed in one 422.
struct ThinningRequest {
    /// Most grid cells one answer may cover (a 1024×768 view has about 221 at the default cell size).
    static let maxCells = 65_536

    var viewport: Viewport
    var grid: ThinningGrid
    var filter: ThinningFilter
    var limit: Int

    init(_ body: Components.Schemas.ThinRequest) throws(ProblemError) {
        var errors: [ProblemDetails.FieldError] = []
        let cellSize = body.cellSize ?? 64
        if !ThinningGrid.cellSizes.contains(cellSize) {
            errors.append(.init(pointer: "/cellSize", detail: "must be 16…512, got \(cellSize)"))
        }
        let limit = body.limit ?? 1000
        if !(1...10_000).contains(limit) { errors.append(.init(pointer: "/limit", detail: "must be 1…10000, got \(limit)")) }
        if let priority = body.minDisplayPriority, !(0...1000).contains(priority) {
            errors.append(.init(pointer: "/minDisplayPriority", detail: "must be 0…1000, got \(priority)"))
        }
        var viewport: Viewport?
        do { viewport = try Viewport(body.viewport) } catch {
            errors.append(.init(pointer: JSONPointer.append("/viewport", error.path), detail: error.message))
        }
        if let zoom = viewport?.zoomLevel, !(-1e-9...22 + 1e-9).contains(zoom) {
            errors.append(.init(pointer: "/viewport", detail: "zoom level must be 0…22, got \(zoom)"))
        }
        guard errors.isEmpty, let viewport else { throw ProblemError.invalid(errors) }
        let grid = ThinningGrid(zoom: min(max(Int(viewport.zoomLevel.rounded(.down)), 0), 22), cellSize: cellSize)
        let rect = viewport.visibleMapRect, side = exp2(Double(grid.level))
        let columns = min(rect.size.width, Mercator.worldSize) / side + 2, rows = min(rect.size.height, Mercator.worldSize) / side + 2
        guard columns * rows <= Double(Self.maxCells) else {
            throw ProblemError.invalid(pointer: "/viewport/size", "covers \(Int(columns * rows)) grid cells; at most \(Self.maxCells) (a smaller view or a larger cellSize)")
        }
        self.viewport = viewport
        self.grid = grid
        self.limit = limit
        filter = ThinningFilter(
            kinds: body.kinds.map(Set.init), clusteringIdentifiers: body.clusteringIdentifiers.map(Set.init),
            minDisplayPriority: body.minDisplayPriority)
    }
}

extension Components.Schemas.Cluster {
    init(_ cluster: ThinnedCluster) {
        self.init(
            id: cluster.id.description, count: cluster.count, coordinate: .init(Mercator.coordinate(for: cluster.centroid)),
            bounds: .init(Region(cluster.bounds)), expansionZoom: cluster.expansionZoom,
            clusteringIdentifier: cluster.clusteringIdentifier, kindCounts: .init(additionalProperties: cluster.kindCounts),
            representative: cluster.representative.description)
    }
}
