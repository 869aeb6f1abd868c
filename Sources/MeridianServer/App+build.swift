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
import Thinning
import Timeline

/// The request context of every route.
public typealias AppRequestContext = BasicRequestContext

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
    let (router, thinning) = try await buildRouterAndIndex(configuration, logger: logger)
    return Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [
            ExpectContinueHandler(maxBodySize: max(configuration.maxBodySize, configuration.maxImportBodySize)),
        ])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "meridian"),
        services: [ThinningFollowService(follower: thinning)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The router (problem+json for every error, a body limit, the fast routes, then the contract's
/// operations) and the thinning index its handlers read (which a service keeps current).
func buildRouterAndIndex(_ configuration: ServerConfiguration, logger: Logger) async throws -> (router: Router<AppRequestContext>, thinning: ThinningFollower) {
    let database = try MeridianDatabase.open(path: configuration.databasePath)
    let annotations = try await SQLiteAnnotationStore.open(on: database)
    let thinning = try await ThinningFollower(store: annotations)
    let contract = try Contract.load()
    let handler = APIHandler(
        contract: contract,
        limits: Limits(maxBatchSize: configuration.maxBatchSize, heartbeat: configuration.eventStreamHeartbeat, maxWait: configuration.maxWait),
        transformers: CRSTransformerPool(),
        annotations: annotations,
        thinning: thinning,
        tracking: try await TrackingHub.open(on: database)
    )
    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(ProblemRouterMiddleware(logger: logger))
    router.middlewares.add(MethodNotAllowedMiddleware(routes: try RouteTable.recording { try handler.registerHandlers(on: $0) }))
    router.middlewares.add(BodyLimitMiddleware(
        maxBodySize: configuration.maxBodySize,
        largeBodies: [Paths.annotationImport: configuration.maxImportBodySize]
    ))
    router.middlewares.add(FastRoutes<AppRequestContext, SQLiteAnnotationStore>(store: annotations, thinning: thinning, maxBatchSize: configuration.maxBatchSize,
        thinNulls: contract.requestNulls["thinAnnotations"]))
    try handler.registerHandlers(on: router, configuration: APICoding.configuration, middlewares: [
        ProblemMiddleware(logger: logger, parameterTypes: contract.parameterTypes), HeaderEncodingMiddleware(),
        JSONBodyMiddleware(nullShapes: contract.requestNulls, meaningfulNulls: ["createSubscription", "patchAnnotation", "importAnnotations"], maxBodySize: max(configuration.maxBodySize, configuration.maxImportBodySize)),
    ])
    return (router, thinning)
}

/// Catches the thinning index up whenever the change feed grows, so answers rarely wait for it.
struct ThinningFollowService: Service {
    let follower: ThinningFollower

    func run() async throws {
        await cancelWhenGracefulShutdown { await follower.follow() }
    }
}

