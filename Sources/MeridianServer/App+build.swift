import MeridianHTTP
import CoreMetrics
import Access
import Annotations
import Foundation
import Geodesy
public import Hummingbird
import Logging
import MeridianAPI
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import Storage
import AnnotationIndex
import Timeline

/// Builds the Meridian application: router, handlers, middleware.
///
/// ```swift
/// let app = try await buildApplication(.testing)
/// try await app.test(.router) { client in … }
/// ```
/// - Parameter onServerRunning: called with the bound port once the server listens (useful with port 0).
public func buildApplication(
    _ configuration: ServerConfiguration,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "meridian")
    logger.logLevel = configuration.logLevel
    let connections = ConnectionTable(limits: configuration.connections)
    let (responder, tenants, storage) = try await buildRouterAndTenants(configuration, connections: connections, logger: logger)
    return Application(
        responder: responder,
        server: .http1(configuration: .init(additionalChannelHandlers: [
            // First, next to the codec: it sees the parser's errors and the parts as they are read.
            MalformedRequestHandler(problems: ProblemMapping.problem),
            ConnectionGuardHandler(table: connections),
            ExpectContinueHandler(maxBodySize: max(configuration.maxBodySize, configuration.maxImportBodySize)),
            EarlyAnswerHandler(),
        ])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "meridian"),
        // Services stop in reverse order: the server, then retention, then the storage closes.
        services: [ShutdownService(tenants: tenants, storage: storage, logger: logger), tenants.retentionService(pace: configuration.retentionPace, logger: logger)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The responder (``HeadResponder`` around a router: CORS, gzip, problem+json for every error, access, a
/// body limit, the fast routes, then the contract's operations) and the tenants its handlers reach
/// (whose indexes a service keeps current).
func buildRouterAndTenants(
    _ configuration: ServerConfiguration, connections: ConnectionTable, logger: Logger
) async throws -> (responder: HeadResponder<RouterResponder<AppRequestContext>>, tenants: TenantSpace, storage: any StorageEngine) {
    let metrics = ServerMetrics()
    let commits = metrics.commitLatency
    let storage = try await DatabasePlace.open(configuration.databasePath, logger: logger) { commits.recordNanoseconds(Int64($0 * 1e9)) }
    let tenants = try await TenantSpace(
        storage: storage, metrics: metrics, delivery: configuration.delivery, annotationCacheBytes: configuration.annotationCacheBytes,
        heavyQueriesPerTenant: configuration.heavyQueriesPerTenant, retention: configuration.retention)
    // Indexes load before the server listens, as they did before tenants (a million annotations take seconds).
    try await tenants.openKnownTenants()
    let contract = try Contract.load()
    let gatekeeper = try Gatekeeper(store: try await storage.keyDirectory(), openWhenNoKeys: configuration.openWhenNoKeys)
    let handler = APIHandler(
        contract: contract,
        limits: Limits(maxBatchSize: configuration.maxBatchSize, heartbeat: configuration.eventStreamHeartbeat, maxWait: configuration.maxWait),
        transformers: CRSTransformerPool(),
        tenants: tenants,
        streams: StreamGate(limit: configuration.maxStreamsPerKey, metrics: metrics, isRevoked: { gatekeeper.isRevoked(keyID: $0) }),
        metrics: metrics,
        web: try WebPage(root: configuration.webRoot, baseMapPath: configuration.baseMapPath)
    )
    let routes = try RouteTable.recording { try handler.registerHandlers(on: $0) }
    let corsOrigins = try CORSOrigins(configuration.corsOrigins, keyed: !(try gatekeeper.isOpen()))
    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(ObservabilityMiddleware(routes: routes, metrics: metrics, logger: logger))
    // HTTP's own rules, around every answer (problems included) and before any key is asked for.
    if !corsOrigins.isEmpty { router.middlewares.add(CORSMiddleware(origins: corsOrigins, routes: routes, isOpen: { (try? gatekeeper.isOpen()) ?? false })) }
    router.middlewares.add(CompressionMiddleware())
    router.middlewares.add(ProblemRouterMiddleware(logger: logger, problems: ProblemMapping.problem))
    router.middlewares.add(WebFilesMiddleware(root: configuration.webRoot))
    router.middlewares.add(MethodNotAllowedMiddleware(routes: routes))
    router.middlewares.add(NegotiationMiddleware(representations: contract.representations, routes: routes))
    router.middlewares.add(AccessMiddleware(
        gatekeeper: gatekeeper,
        routes: routes,
        limiter: RateLimiter(rate: configuration.rateLimit, burst: configuration.rateBurst)
    ))
    router.middlewares.add(BodyLimitMiddleware(
        maxBodySize: configuration.maxBodySize,
        largeBodies: [Paths.annotationImport: configuration.maxImportBodySize],
        routes: routes
    ))
    // After the body is in: a slow upload is not a slow request.
    router.middlewares.add(TimeoutMiddleware(
        timeout: configuration.requestTimeout, routes: routes, connections: connections, streams: [Paths.eventStream], longPolls: Paths.longPolls))
    router.middlewares.add(IngestAdapterRoutes<AppRequestContext>(tenants: tenants, metrics: metrics))
    router.middlewares.add(FastRoutes<AppRequestContext>(tenants: tenants, metrics: metrics, maxBatchSize: configuration.maxBatchSize,
        thinNulls: contract.requestNulls["thinAnnotations"]))
    try handler.registerHandlers(on: router, configuration: APICoding.configuration, middlewares: [
        ProblemMiddleware(logger: logger, contract: contract, problems: ProblemMapping.problem), HeaderEncodingMiddleware(),
        RequestOrigin.Middleware(operations: ["getBaseMapInfo", "getClusterTileInfo"]),
        OGCRequest.Middleware(),
        OrderedContractMiddleware(json: contract.jsonText, operations: ["getContract", "getContractJSON"]),
        JSONBodyMiddleware(nullShapes: contract.requestNulls, maxBodySize: max(configuration.maxBodySize, configuration.maxImportBodySize)),
        ExactNumbersMiddleware(maxBodySize: .max),
    ])
    // HEAD is a GET before the router picks the route.
    return (HeadResponder(router.buildResponder(), routes: routes, longPolls: Paths.longPolls), tenants, storage)
}

