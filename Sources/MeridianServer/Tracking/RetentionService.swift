import MeridianHTTP
import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import Storage
import Timeline
public import Tracking

/// How the retention task deletes. Small transactions with pauses between them: on SQLite the
/// writer is shared with ingest, so a batch is what an ingest commit may queue behind, and the
/// rate bounds the WAL the deletions write (what the checkpoints must copy beside ingest's).
public struct RetentionPace: Sendable {
    /// Rows one transaction deletes at most.
    public var batchSize = 200
    /// Rows deleted per second at most (`--retention-rate`): after a batch of n rows the task
    /// pauses n / rate seconds.
    public var rowsPerSecond = RetentionPace.defaultRowsPerSecond
    /// What `--retention-rate` is unless set.
    public static let defaultRowsPerSecond = 10_000.0

    /// The pause after a batch that deleted `rows` rows.
    func pause(after rows: Int) -> Duration { .seconds(Double(rows) / rowsPerSecond) }
    /// Time from the end of one sweep over every tenant to the start of the next.
    public var interval: Duration = .seconds(60)
    /// Devices one fix transaction visits at most (each costs a few index seeks even with nothing to delete).
    public var devicesPerBatch = 64

    public init() {}
}

/// Deletes every tenant's expired events (a prefix of the log) and fixes, a batch at a time, for
/// the life of the server. On PostgreSQL every instance runs it; a batch another instance holds
/// the tenant's lock for is skipped (that instance does the tenant's sweep).
struct RetentionService: Service {
    let storage: any StorageEngine
    let defaults: RetentionPolicy
    let pace: RetentionPace
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await sweep()
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("retention sweep failed; retrying at the next one", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: pace.interval)
            }
        }
    }

    /// One pass over every tenant the database knows: the coming months' partitions
    /// (PostgreSQL), every tenant's marks (readers stop reading what expired), then the whole months of history every tenant has hidden are dropped
    /// (PostgreSQL), then each tenant's hidden rows that are left are deleted in batches.
    func sweep() async throws {
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        do {
            try await storage.prepareHistory(now: now)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("could not make the coming months' partitions of fixes and events; retrying at the next sweep", metadata: ["error": "\(error)"])
        }
        var sweeps: [(tenant: TenantID, store: any RetentionStore, events: Instant?, fixes: Instant?)] = []
        for id in try await storage.knownTenants() {
            try Task.checkCancellation()
            let store = storage.retention(tenant: id)
            let policy = defaults.overridden(by: try await store.overrides())
            let (events, fixes) = (policy.eventHorizon(now: now), policy.fixHorizon(now: now))
            if let events { try await store.markEvents(recordedBefore: events) }
            if let fixes { try await store.markFixes(before: fixes) }
            sweeps.append((id, store, events, fixes))
        }
        do {
            let dropped = try await storage.dropHiddenHistory(now: now)
            if !dropped.isEmpty {
                logger.info("retention dropped whole months of history", metadata: ["partitions": "\(dropped.joined(separator: ", "))"])
                metrics.counter("meridian_retention_dropped_partitions_total", dimensions: []).increment(by: Int64(dropped.count))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.warning("retention could not drop months of history now; retrying at the next sweep", metadata: ["error": "\(error)"])
        }
        for (id, store, events, fixes) in sweeps {
            try Task.checkCancellation()
            if let events { try await deleteEvents(store, before: events, tenant: id) }
            if let fixes { try await deleteFixes(store, before: fixes, tenant: id) }
            let marks = try await store.marks()
            metrics.gauge("meridian_retention_first_event_sequence", tenant: id.description, Double(marks.firstAvailableSequence))
            if let before = marks.fixesBefore {
                metrics.gauge("meridian_retention_fixes_deleted_before_seconds", tenant: id.description, Double(before.microseconds) / 1e6)
            }
        }
    }

    private func deleteEvents(_ store: any RetentionStore, before horizon: Instant, tenant: TenantID) async throws {
        let deleted = metrics.counter("meridian_retention_deleted_total", dimensions: [("kind", "events"), ("tenant", tenant.description)])
        while let count = try await store.deleteEvents(recordedBefore: horizon, limit: pace.batchSize), count > 0 {
            deleted.increment(by: Int64(count))
            try await Task.sleep(for: pace.pause(after: count))
        }
    }

    private func deleteFixes(_ store: any RetentionStore, before horizon: Instant, tenant: TenantID) async throws {
        let deleted = metrics.counter("meridian_retention_deleted_total", dimensions: [("kind", "fixes"), ("tenant", tenant.description)])
        var device = ""
        while let batch = try await store.deleteFixes(before: horizon, from: device, limit: pace.batchSize, devices: pace.devicesPerBatch) {
            let (count, next) = batch
            if count > 0 {
                deleted.increment(by: Int64(count))
                try await Task.sleep(for: pace.pause(after: count))
            }
            guard let next else { return }
            device = next
        }
    }
}
