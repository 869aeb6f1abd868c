import MeridianHTTP
import Storage
import Annotations
import Foundation
import HTTPTypes
import MapGeometry
import MeridianAPI
import AnnotationIndex
import Timeline

/// Thinning: annotations plus clusters for a viewport, and clusters by id (tag Thinning).
///
/// `POST /v1/annotations/thin` and `GET /v1/clusters/{id}` are answered by ``FastRoutes`` (the
/// answer written by ``ThinAnswerWriter``, its 422s through the same ``ThinningQuery``) whenever
/// the request decodes; these generated handlers answer the same bytes (a test compares them) and
/// explain the requests that do not decode (400) and clusters that are malformed or gone.
extension APIHandler {
    func thinAnnotations(_ input: Operations.ThinAnnotations.Input) async throws -> Operations.ThinAnnotations.Output {
        switch input.body {
        case .json(let body):
            let answer = try await ThinningAnswer(ThinningQuery(body, filter: RequestFilter.body(body.filter?.value1)), tenant: tenants.current())
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
        let id = try Self.clusterID(input.path.clusterId)
        guard let cluster = try await tenants.current().thinningIndex(for: id.filter).cluster(id) else { throw Self.clusterGone(input.path.clusterId) }
        return .ok(.init(body: .json(.init(cluster))))
    }

    func getClusterLeaves(_ input: Operations.GetClusterLeaves.Input) async throws -> Operations.GetClusterLeaves.Output {
        let id = try Self.clusterID(input.path.clusterId)
        let limit = try Paging.limit(input.query.limit)
        var cursor: LeafCursor?
        if let text = input.query.cursor {
            guard let parsed = LeafCursor(text) else {
                throw ProblemError(.badRequest, detail: "cursor is not one this server issued", errors: [.init(parameter: "cursor", detail: "must be a nextCursor of this cluster")])
            }
            cursor = parsed
        }
        guard let page = try await tenants.current().thinningIndex(for: id.filter).leaves(of: id, after: cursor, limit: limit) else {
            throw Self.clusterGone(input.path.clusterId)
        }
        let found = try await annotations.annotations(ids: page.ids)
        return .ok(.init(body: .json(.init(
            annotations: page.ids.compactMap { found[$0].map(Components.Schemas.Annotation.init) },
            nextCursor: page.next?.description))))
    }

    /// A cluster id of a path: base64url text (the contract's pattern) is 400 otherwise; text of
    /// that alphabet that names no place is a cluster that does not exist (404).
    static func clusterID(_ text: String) throws(ProblemError) -> ClusterID {
        guard (1...ClusterID.maxTextLength).contains(text.utf8.count), text.utf8.allSatisfy(Base64URL.isAlphabet) else {
            throw ProblemError(.badRequest, detail: "clusterId is not a cluster id", errors: [.init(parameter: "clusterId", detail: "must be base64url text from a thinning answer")])
        }
        guard let id = ClusterID(text) else { throw clusterGone(text) }
        return id
    }

    static func clusterGone(_ text: String) -> ProblemError {
        ProblemError(.notFound, detail: "no cluster with id \(text): that place now holds fewer than two members")
    }
}

/// A thinning answer before it is written: the index's items and the whole annotations they name.
struct ThinningAnswer {
    var viewport: Viewport
    var result: ThinningResult
    /// The annotations shown by themselves, read after the index; one deleted in between is absent and left out.
    var annotations: [AnnotationID: Annotation]

    init(_ query: ThinningQuery, tenant: TenantSpace.Tenant) async throws {
        viewport = query.viewport
        let index = try await tenant.thinningIndex(for: query.filter.matching)
        result = index.thin(query.viewport.visibleMapRect, grid: query.grid, filter: query.filter, limit: query.limit)
        annotations = try await tenant.annotations.annotations(ids: result.items.compactMap { if case .annotation(let id, _) = $0 { id } else { nil } })
    }
}

extension TenantSpace.Tenant {
    /// The thinning index holding every write acknowledged before the call: the tenant's, or the
    /// one of `filter`'s matches.
    func thinningIndex(for filter: Filter?) async throws -> ThinningIndex {
        guard let filter else { return try await thinning.current() }
        return try await filtered.follower(for: filter).index
    }
}

extension ThinningQuery {
    /// The query a request body asks for, with its CQL2 `filter` read already; every bad field in one 422.
    init(_ body: Components.Schemas.ThinRequest, filter matching: Filter?) throws(FieldErrors) {
        let filter = ThinningFilter(
            kinds: body.kinds.map(Set.init), clusteringIdentifiers: body.clusteringIdentifiers.map(Set.init),
            minDisplayPriority: body.minDisplayPriority, matching: matching)
        try self.init(viewport: { () throws(FieldError) in try Viewport(body.viewport) }, cellSize: body.cellSize, limit: body.limit, filter: filter)
    }
}
