import MeridianHTTP
import Access
import Annotations
import Delivery
import DeliveryHTTP
import Foundation
import Logging
import ServiceLifecycle
import Storage
import Synchronization
import AnnotationIndex
import Timeline
import Tracking

/// Every tenant's stores and in-memory indexes, opened on the first request that needs them and
/// kept for the life of the server: a tenant is part of every store query and owns its own
/// thinning index, tracker (region index, devices) and feed signals, so nothing one tenant does
/// is visible to another.
final class TenantSpace: Sendable {
    /// One tenant's share of the server.
    struct Tenant: Sendable {
        let annotations: any ServedAnnotationStore
        /// The tenant's thinning index, following its change feed.
        let thinning: IndexFollower
        /// Annotations' JSON for query answers, by id and version.
        let encoded: EncodedAnnotations
        /// Thinning indexes of the filters recent thin requests carried, kept on demand.
        let filtered: FilteredThinning
        /// The tenant's devices, subscriptions and event log.
        let tracking: TrackingHub
        /// The tenant's webhooks and their workers.
        let delivery: DeliveryHub
        /// Where the tenant's expensive queries (filters over rows, exports) wait their turn: its
        /// own gate, then the server's.
        let heavyQueries: [AsyncGate]
        /// The tenant's idempotency keys whose first request is still being processed here.
        let keysInFlight = IdempotencyKeysInFlight()
        /// The tenant's recent thin answers on this instance, for deltas.
        let deltas = ThinDeltas()

        /// The tenant's query verbs: the point index first, the rows second, expensive ones in turn.
        var queries: AnnotationQueries { AnnotationQueries(follower: thinning, store: annotations, admission: heavyQueries) }
    }

    private let storage: any StorageEngine
    private let metrics: ServerMetrics
    private let deliverySettings: DeliverySettings
    /// Webhook requests of every tenant.
    private let transport: any WebhookTransport
    /// Annotation ids for every tenant: one generator, so ids never repeat across tenants.
    private let annotationIDs: UUIDv7Generator
    /// Subscription and event ids for every tenant.
    private let trackingIDs: UUIDv7Generator
    /// This process among the instances that share a database (the owner of its webhook claims).
    private let instance = UUIDv7Generator().next().description
    private let opened = Mutex<[TenantID: Task<Tenant, any Error>]>([:])
    /// The background work of each opened tenant: its thinning index's catch-up, its JSON cache's filling, its status deadlines.
    private let backgroundTasks = Mutex<[Task<Void, Never>]>([])
    /// Bytes of annotations' JSON each tenant keeps for query answers.
    private let annotationCacheBytes: Int
    /// Expensive queries each tenant may run at once.
    private let heavyQueriesPerTenant: Int
    /// How long fixes and events are kept where a tenant sets nothing of its own.
    let retentionDefaults: RetentionPolicy
    /// Expensive queries all tenants together run at once: one of SQLite's five readers (GRDB's
    /// default pool) is always left to the rest.
    private let heavyQueries = AsyncGate(width: TenantSpace.heavyQueriesOverall)
    static let heavyQueriesOverall = 4

    /// The space over `storage`, issuing ids after the greatest ones it stored.
    init(
        storage: any StorageEngine, metrics: ServerMetrics = ServerMetrics(), delivery: DeliverySettings = DeliverySettings(),
        transport: any WebhookTransport = HTTPWebhookTransport(), annotationCacheBytes: Int = ServerConfiguration().annotationCacheBytes,
        heavyQueriesPerTenant: Int = ServerConfiguration().heavyQueriesPerTenant, retention: RetentionPolicy = RetentionPolicy()
    ) async throws {
        self.retentionDefaults = retention
        self.storage = storage
        self.annotationCacheBytes = annotationCacheBytes
        self.heavyQueriesPerTenant = heavyQueriesPerTenant
        self.metrics = metrics
        self.deliverySettings = delivery
        self.transport = transport
        annotationIDs = UUIDv7Generator(after: try await storage.lastIssuedAnnotationID())
        trackingIDs = UUIDv7Generator(after: try await storage.lastIssuedTrackingID())
    }

    /// Throws unless the database answers now.
    func pingStorage() async throws {
        try await storage.ping()
    }

    /// The tenant of the current request (``RequestScope``).
    func current() async throws -> Tenant {
        try await tenant(RequestScope.current().tenant)
    }

    /// `id`'s stores and indexes, opening them on first use (concurrent first uses share one opening).
    func tenant(_ id: TenantID) async throws -> Tenant {
        let task = opened.withLock { opened in
            if let task = opened[id] { return task }
            let task = Task { try await self.open(id) }
            opened[id] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed opening (the database was unreadable) is retried by the next request.
            opened.withLock { if $0[id] == task { $0[id] = nil } }
            throw error
        }
    }

    /// The current request's tenant's retention settings and marks.
    func retention() throws -> any RetentionStore {
        storage.retention(tenant: try RequestScope.current().tenant)
    }

    /// The task that deletes every tenant's expired fixes and events at `pace`.
    func retentionService(pace: RetentionPace, logger: Logger) -> some Service {
        RetentionService(storage: storage, defaults: retentionDefaults, pace: pace, metrics: metrics, logger: logger)
    }

    /// Opens every tenant the database knows, so no request pays for loading its indexes.
    func openKnownTenants() async throws {
        for id in try await storage.knownTenants() { _ = try await tenant(id) }
    }

    /// Tenants opened so far, by name (for metrics).
    func openedTenants() async -> [(TenantID, Tenant)] {
        let tasks = opened.withLock { $0 }
        var tenants: [(TenantID, Tenant)] = []
        for (id, task) in tasks.sorted(by: { $0.key < $1.key }) {
            if let tenant = try? await task.value { tenants.append((id, tenant)) }
        }
        return tenants
    }

    /// Stops every tenant's background catch-up and waits for it to end (graceful shutdown):
    /// nothing of it still reads when the database closes.
    /// - Returns: false when one did not stop within ``stopLimit`` (it is no longer waited for:
    ///   a catch-up stuck on a query whose connection was lost, in postgres-nio, never ends).
    @discardableResult
    func stopFollowing() async -> Bool {
        let tasks = backgroundTasks.withLock { $0 }
        for task in tasks { task.cancel() }
        let deadline = ContinuousClock.now + Self.stopLimit
        for task in tasks where await !task.ends(within: max(.zero, deadline - .now)) { return false }
        return true
    }

    /// How long shutdown waits for the tenants' background catch-up to stop.
    static let stopLimit: Duration = .seconds(3)

    /// Stops every tenant's webhook workers, letting the attempts in flight finish, then closes
    /// their connections (graceful shutdown).
    func stopDelivering() async {
        for (_, tenant) in await openedTenants() { await tenant.delivery.stop() }
        await transport.shutdown()
    }

    private func open(_ id: TenantID) async throws -> Tenant {
        let annotations = storage.annotations(tenant: id, ids: annotationIDs)
        let thinning = try await IndexFollower(store: annotations)
        let encoded = EncodedAnnotations(budget: annotationCacheBytes)
        backgroundTasks.withLock { tasks in
            tasks.append(Task { await thinning.follow() })
            // Lower priority than requests: answers fill it too, this only gets ahead of them.
            tasks.append(Task(priority: .background) { try? await encoded.fill(thinning.points.idsInOrder, from: annotations) })
        }
        let metrics = metrics
        let appended: @Sendable (Int64) -> Void = { metrics.eventsAppended($0, tenant: id.description) }
        let tenantTracking = storage.tracking(tenant: id)
        let tracking = try await TrackingHub.open(tenantTracking, retention: storage.retention(tenant: id), ids: trackingIDs, appended: appended)
        backgroundTasks.withLock { tasks in
            tasks.append(Task { await tracking.run(deadlinesFired: { metrics.deadlinesFired($0, tenant: id.description) }) })
        }
        let webhooks = storage.webhooks(tenant: id)
        let delivery = try await startDelivery(
            id, store: webhooks.store, events: LoggedEvents(hub: tracking, store: tenantTracking.log), changes: webhooks.changes)
        let heavyQueries = [AsyncGate(width: min(heavyQueriesPerTenant, Self.heavyQueriesOverall)), self.heavyQueries]
        return Tenant(
            annotations: annotations, thinning: thinning, encoded: encoded,
            filtered: FilteredThinning(store: annotations, points: thinning, admission: heavyQueries),
            tracking: tracking, delivery: delivery, heavyQueries: heavyQueries)
    }

    /// `id`'s webhooks and their workers, started.
    /// - Parameter changes: moves when another instance changed the webhooks (nil: this one alone delivers).
    private func startDelivery(_ id: TenantID, store: any WebhookStore, events: LoggedEvents, changes: SequenceSignal?) async throws -> DeliveryHub {
        let trackingIDs = trackingIDs
        let delivery = DeliveryHub(context: DeliveryContext(
            store: store, events: events, transport: transport, settings: deliverySettings,
            observer: DeliveryMetrics(metrics: metrics, tenant: id.description),
            now: { Instant(secondsSince1970: Date().timeIntervalSince1970) }, instance: instance, changes: changes
        ), newID: { trackingIDs.next().description })
        do {
            try await delivery.start()
        } catch {
            await delivery.stop()  // no worker outlives a failed opening (the next one starts its own)
            throw error
        }
        return delivery
    }
}

/// Waits for graceful shutdown (SIGTERM), which stops the server first (it is the application's
/// last service, and services stop in reverse order): then stops every tenant's background
/// catch-up and closes the storage (SQLite checkpoints, so the database file is whole when the
/// process exits 0; PostgreSQL's connections close).
struct ShutdownService: Service {
    let tenants: TenantSpace
    let storage: any StorageEngine
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        if await !tenants.stopFollowing() {
            logger.warning("a tenant's catch-up did not stop within \(TenantSpace.stopLimit) of shutdown; not waiting for it")
        }
        await tenants.stopDelivering()
        do {
            try storage.checkpoint()
            await storage.close()
            logger.info("database closed; stopped")
        } catch {
            logger.error("closing the database at shutdown failed (SQLite's WAL still holds every commit)", metadata: ["error": "\(error)"])
        }
    }
}
