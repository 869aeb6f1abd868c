import MeridianHTTP
import Annotations
import Geodesy
import HTTPTypes
import MapGeometry
import MeridianAPI
import OpenAPIRuntime
import Storage
import AnnotationIndex

/// The contract's operations: each decodes its input, calls the domain, encodes the answer.
/// Errors are thrown, never hand-built: ``ProblemMiddleware`` turns them into problem+json.
/// Every store and index it reaches is the calling tenant's (``RequestScope``).
struct APIHandler: APIProtocol {
    /// The contract text served at `/openapi.yaml`.
    let contract: Contract
    /// Batch and size limits.
    let limits: Limits
    /// PROJ transformations, reused across requests.
    let transformers: CRSTransformerPool
    /// Every tenant's stores and indexes.
    let tenants: TenantSpace
    /// Open event streams and long polls per key.
    let streams: StreamGate
    /// What `/metrics` shows.
    let metrics: ServerMetrics
    /// The map page's folder and base map.
    let web: WebPage

    /// The caller's annotations.
    var annotations: any ServedAnnotationStore { get async throws { try await tenants.current().annotations } }
    /// The caller's thinning index, following its annotations.
    var thinning: IndexFollower { get async throws { try await tenants.current().thinning } }
    /// The caller's query verbs: the point index first, the rows second.
    var queries: AnnotationQueries { get async throws { try await tenants.current().queries } }
    /// The caller's devices, subscriptions and event log.
    var tracking: TrackingHub { get async throws { try await tenants.current().tracking } }

    // MARK: - Operations

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        .ok(.init(body: .json(.init(status: "ok"))))
    }

    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        // Ready when PROJ transforms a point, GEOS validates a square and the database answers.
        _ = try transformers.transform([[0, 0]], from: "EPSG:4326", to: "EPSG:3857")
        let square = [(0.0, 0.0), (0, 1), (1, 1), (1, 0), (0, 0)].map { Coordinate(latitude: $0.0, longitude: $0.1) }
        try GeoPolygon(exterior: square).validate()
        do { try await tenants.pingStorage() } catch {
            throw ProblemError(.serviceUnavailable, detail: "the database does not answer")
        }
        return .ok(.init(body: .json(.init(status: "ok"))))
    }

    func getContract(_ input: Operations.GetContract.Input) async throws -> Operations.GetContract.Output {
        // YAML unless the client ranks JSON above it (no Accept, or */*, is YAML).
        let ranked = input.headers.accept.sortedByQuality()
        if let first = ranked.first(where: { $0.contentType != .other("*/*") && $0.quality.doubleValue > 0 }), first.contentType == .json {
            return .ok(.init(body: .json(contract.json)))
        }
        return .ok(.init(body: .yaml(HTTPBody(contract.text))))
    }

    func getContractJSON(_ input: Operations.GetContractJSON.Input) async throws -> Operations.GetContractJSON.Output {
        .ok(.init(body: .json(contract.json)))
    }

    // MARK: - Shared shapes

    /// Validates a batch (the body member `field`), then converts each item; a 422 lists every invalid item.
    func convertBatch<Wire, Value, Output>(
        _ items: [Wire],
        at field: String,
        _ decode: (Wire) throws(FieldError) -> Value,
        _ convert: (Value) -> Output
    ) throws(FieldErrors) -> [Output] {
        var errors = FieldErrors()
        let values = errors.batch(items, at: [field], maxItems: limits.maxBatchSize, decode)
        try errors.check()
        return values.map(convert)
    }

    /// Validates a viewport and a batch, then converts each item in that viewport.
    func convertBatch<Wire, Value, Output>(
        in viewport: Components.Schemas.Viewport,
        _ items: [Wire],
        at field: String,
        _ decode: (Wire) throws(FieldError) -> Value,
        _ convert: (Viewport, Value) -> Output
    ) throws(FieldErrors) -> [Output] {
        var errors = FieldErrors()
        let view = errors.value(at: ["viewport"]) { () throws(FieldError) in try Viewport(viewport) }
        let values = errors.batch(items, at: [field], maxItems: limits.maxBatchSize, decode)
        let checked = try errors.check(view)
        return values.map { convert(checked, $0) }
    }
}
