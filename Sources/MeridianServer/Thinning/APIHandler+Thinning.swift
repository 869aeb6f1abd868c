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
            func item(_ position: Int) -> Components.Schemas.ThinItem? {
                switch answer.result.items[position] {
                case .annotation(let id, let point):
                    guard let annotation = answer.annotations[id] else { return nil }
                    let own = answer.own(annotation)
                    return .annotation(.init(
                        _type: "annotation", annotation: .init(annotation), screenPoint: .init(viewport.screenPoint(for: point)),
                        weight: own.weight, aggregates: .init({ own.aggregates[$0] }, kinds: answer.aggregateKinds)))
                case .cluster(let cluster):
                    let wire = Components.Schemas.Cluster(cluster, aggregateKinds: answer.aggregateKinds)
                    return .cluster(.init(
                        _type: "cluster", id: wire.id, count: wire.count, coordinate: wire.coordinate, bounds: wire.bounds,
                        expansionZoom: wire.expansionZoom, clusteringIdentifier: wire.clusteringIdentifier,
                        kindCounts: .init(additionalProperties: wire.kindCounts.additionalProperties),
                        representative: wire.representative, screenPoint: .init(viewport.screenPoint(for: cluster.centroid)),
                        weight: wire.weight, aggregates: wire.aggregates))
                }
            }
            let delta = answer.delta
            return .ok(.init(body: .json(.init(
                zoomLevel: viewport.zoomLevel, gridZoom: answer.result.grid.zoom, cellSize: answer.result.grid.cellSize,
                visibleMapRect: .init(viewport.visibleMapRect), truncated: answer.result.truncated,
                items: delta == nil ? answer.result.items.indices.compactMap(item) : nil, deltaToken: answer.deltaToken, reset: answer.reset,
                added: delta?.added.compactMap(item), changed: delta?.changed.compactMap(item), removed: delta?.removed))))
        }
    }

    func getCluster(_ input: Operations.GetCluster.Input) async throws -> Operations.GetCluster.Output {
        let id = try Self.clusterID(input.path.clusterId)
        let kinds = try AggregateParameter.kinds(input.query.aggregate)
        guard let cluster = try await tenants.current().cluster(id, aggregates: kinds) else { throw Self.clusterGone(input.path.clusterId) }
        return .ok(.init(body: .json(.init(cluster, aggregateKinds: kinds))))
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
    /// What the items carry besides their own fields: the weight's property and the aggregates.
    var weight: String?
    var aggregateKinds: [String: [AggregateKind]]
    /// Names this answer for a later `since`.
    var deltaToken = ""
    /// With `since`: false and ``delta`` when the earlier answer is held, else true.
    var reset: Bool?
    var delta: ThinDelta?

    /// With the query's `since`, the answer is a delta from that earlier answer when it is held.
    init(_ query: ThinningQuery, tenant: TenantSpace.Tenant) async throws {
        viewport = query.viewport
        weight = query.options.weight
        aggregateKinds = query.aggregateKinds
        result = try await tenant.thinningFollower(for: query.filter.matching).read(query.options, admission: tenant.heavyQueries) { index throws(ThinningIndex.MissingColumn) in
            try index.thin(query.viewport.visibleMapRect, grid: query.grid, filter: query.filter, options: query.options, limit: query.limit)
        }
        annotations = try await tenant.annotations.annotations(ids: result.items.compactMap { if case .annotation(let id, _) = $0 { id } else { nil } })
        let scope = ThinDeltas.Scope(query)
        let shown = fingerprints()
        if let since = query.since {
            let earlier = tenant.deltas.take(since, scope: scope)
            reset = earlier == nil
            delta = earlier.map { ThinDelta(from: $0, to: shown) }
        }
        deltaToken = tenant.deltas.remember(scope, prints: Dictionary(shown.map { ($0.id, $0.print) }, uniquingKeysWith: { $1 }))
    }

    /// The items written (an annotation deleted since the index answered is not): their positions,
    /// ids and a hash of what each shows (an annotation's version and place, a cluster's every
    /// field; the screen points follow from those in one viewport).
    private func fingerprints() -> [(position: Int, id: String, print: Int)] {
        result.items.enumerated().compactMap { position, item in
            var hasher = Hasher()
            switch item {
            case .annotation(let id, let point):
                guard let annotation = annotations[id] else { return nil }
                hasher.combine(annotation.version)
                hasher.combine(point)
                return (position, id.description, hasher.finalize())
            case .cluster(let cluster):
                hasher.combine(cluster)
                return (position, cluster.id.description, hasher.finalize())
            }
        }
    }

    /// What an annotation shown by itself answers of the weight and aggregates: its own values.
    func own(_ annotation: Annotation) -> (weight: Double?, aggregates: [String: PropertyAggregate]) {
        Self.own(annotation, weight: weight, aggregates: aggregateKinds.keys)
    }

    /// An annotation's own weight (by `weight`) and aggregates of `aggregates`, as an item shows them.
    static func own(_ annotation: Annotation, weight: String?, aggregates: some Collection<String>) -> (weight: Double?, aggregates: [String: PropertyAggregate]) {
        guard weight != nil || !aggregates.isEmpty else { return (nil, [:]) }
        let numbers = ThinningEntry.numbers(of: annotation.content.properties)
        return (weight.map { PropertyAggregate.weight(of: numbers[$0]) }, Dictionary(uniqueKeysWithValues: aggregates.map { ($0, PropertyAggregate(numbers[$0])) }))
    }
}

extension TenantSpace.Tenant {
    /// The thinning index holding every write acknowledged before the call: the tenant's, or the
    /// one of `filter`'s matches.
    func thinningIndex(for filter: Filter?) async throws -> ThinningIndex {
        try await thinningFollower(for: filter).current()
    }

    /// The follower of the tenant's thinning index, or of the one of `filter`'s matches.
    func thinningFollower(for filter: Filter?) async throws -> IndexFollower {
        guard let filter else { return thinning }
        return try await filtered.follower(for: filter)
    }

    /// The cluster `id` names as it is now, with the aggregates of `aggregates`' properties.
    func cluster(_ id: ClusterID, aggregates: [String: [AggregateKind]]) async throws -> ThinnedCluster? {
        let options = ThinningOptions(weight: id.weight, aggregates: aggregates.keys.sorted())
        return try await thinningFollower(for: id.filter).read(options, admission: heavyQueries) { index throws(ThinningIndex.MissingColumn) in
            try index.cluster(id, aggregates: options.aggregates)
        }
    }
}

extension ThinningQuery {
    /// The query a request body asks for, with its CQL2 `filter` read already; every bad field in one 422.
    init(_ body: Components.Schemas.ThinRequest, filter matching: Filter?) throws(FieldErrors) {
        let filter = ThinningFilter(
            kinds: body.kinds.map(Set.init), clusteringIdentifiers: body.clusteringIdentifiers.map(Set.init),
            minDisplayPriority: body.minDisplayPriority, matching: matching)
        let aggregates = (body.aggregates?.additionalProperties ?? [:]).mapValues { Set($0.compactMap { AggregateKind(rawValue: $0.rawValue) }) }
        try self.init(
            viewport: { () throws(FieldError) in try Viewport(body.viewport) }, cellSize: body.cellSize, limit: body.limit, filter: filter,
            maxZoom: body.maxZoom, weight: body.weight, aggregates: aggregates, since: body.since)
    }
}

/// The `aggregate` query parameter: `<property>:<aggregate>`, repeated.
enum AggregateParameter {
    /// The aggregates per property the values name (422 at `aggregate` for a malformed one).
    static func kinds(_ values: [String]?) throws(ProblemError) -> [String: [AggregateKind]] {
        var kinds: [String: Set<AggregateKind>] = [:]
        // The contract's maxItems: at most 8 values, so at most 8 properties.
        if let values, values.count > ThinningQuery.maxAggregatedProperties {
            throw ProblemError.invalid([.init(parameter: "aggregate", detail: "must have at most \(ThinningQuery.maxAggregatedProperties) values, got \(values.count)")])
        }
        for value in values ?? [] {
            // Split at the last colon by code point, as the contract's pattern reads it.
            let scalars = value.unicodeScalars
            guard let colon = scalars.lastIndex(of: ":"), colon != scalars.startIndex,
                  let kind = AggregateKind(rawValue: String(scalars[scalars.index(after: colon)...])) else {
                throw ProblemError.invalid([.init(parameter: "aggregate", detail: "must be <property>:<count|sum|min|max|mean>, got \(value)")])
            }
            kinds[String(scalars[..<colon]), default: []].insert(kind)
        }
        // The body's rules for `aggregates`, said of this parameter.
        if let error = ThinningQuery.aggregateErrors(kinds).first {
            throw ProblemError.invalid([.init(parameter: "aggregate", detail: error.message)])
        }
        return kinds.mapValues { $0.sorted() }
    }
}
