import MapGeometry
import Synchronization
import Timeline

/// The tracker over a store several processes write (PostgreSQL). Each change runs in the
/// store's exclusive transaction: the tenant's tracking lock is held, the in-memory state is
/// reloaded when another process committed since (its revision moved), then the change is planned,
/// applied and committed as over a local store. Within a process, changes and catch-ups take turns
/// (``sharedGate``), so a reload never replaces a state a change is being planned on. No group
/// commit: one transaction per request.
extension Tracker {
    func sharedIngest(_ store: any SharedTrackingStore, deviceId: String, fixes: [LocationFix]) async throws -> IngestResult {
        let result = try await exclusively(store) { [self] transaction in
            // The clock read once the lock is held: arrival times follow the order of evaluation.
            let receivedAt = now()
            var plan = state.withLock { state in
                let plan = state.plan(deviceId: deviceId, fixes: fixes, receivedAt: receivedAt, eventID: newID)
                state.apply(plan)
                return plan
            }
            let duplicates = try await transaction.commit([plan])
            plan.markDuplicates(duplicates[0])
            return IngestResult(results: plan.results, skipped: plan.skipped, events: plan.events)
        }
        announce(result.events)
        return result
    }

    func sharedSubscribe(_ store: any SharedTrackingStore, _ make: @escaping @Sendable (String, Instant) -> Subscription) async throws -> Subscription {
        return try await exclusively(store) { [self] transaction in
            let (id, createdAt) = (newID(), now())
            let subscription = state.withLock { state in
                var subscription = make(id, createdAt)
                subscription.acceptedFixesBefore = state.acceptedFixes
                state.add(subscription)
                return subscription
            }
            try await transaction.insert(subscription)
            return subscription
        }
    }

    func sharedUnsubscribe(_ store: any SharedTrackingStore, _ id: String) async throws -> Unsubscription {
        let outcome = try await exclusively(store) { [self] transaction -> Unsubscription in
            let at = now()
            let planned = state.withLock { state -> Unsubscription in
                guard let existing = state.subscriptions[id] else { return .notFound }
                guard let plan = state.planDeletion(of: id, at: at, eventID: newID) else { return .alreadyDeleted(existing) }
                state.apply(plan)
                return .deleted(plan)
            }
            if case .deleted(let plan) = planned { try await transaction.commit(plan) }
            return planned
        }
        if case .deleted(let plan) = outcome { announce(plan.events) }
        return outcome
    }

    func sharedUpdate(_ store: any SharedTrackingStore, _ id: String, _ edit: SubscriptionChange) async throws -> Update {
        let outcome = try await exclusively(store) { [self] transaction -> Update in
            let at = now()
            // Planned first, so a change that does not fit leaves the state as it is.
            let planned = try state.withLock { state throws(FieldError) -> Update in
                guard let existing = state.subscriptions[id] else { return .notFound }
                guard let plan = try state.planChange(of: id, edit, at: at, eventID: newID) else { return .deleted(existing) }
                state.apply(plan)
                return .changed(plan)
            }
            if case .changed(let plan) = planned { try await transaction.commit(plan) }
            return planned
        }
        if case .changed(let plan) = outcome { announce(plan.events) }
        return outcome
    }

    /// Reads the state once it holds every change the store had committed when this was called.
    func sharedRead<T: Sendable>(_ store: any SharedTrackingStore, _ body: @escaping @Sendable (TrackingState) -> T) async throws -> T {
        try await sharedGate.run { [self] in
            let revision = try await store.revision()
            if sharedRevision.withLock({ $0 }) != revision {
                let (loaded, loadedRevision) = try await store.loadState()
                state.withLock { $0 = loaded }
                sharedRevision.withLock { $0 = loadedRevision }
            }
            return state.withLock { body($0) }
        }
    }

    /// Runs `body` in the store's exclusive transaction on a state brought up to the store's
    /// revision; after any failure the next change reloads the state (the store is the truth).
    private func exclusively<T: Sendable>(_ store: any SharedTrackingStore, _ body: @escaping @Sendable (any TrackingTransaction) async throws -> T) async throws -> T {
        try await sharedGate.run { [self] in
            do {
                let (result, revision) = try await store.exclusively { [self] transaction in
                    if sharedRevision.withLock({ $0 }) != transaction.revision {
                        let loaded = try await transaction.loadState()
                        state.withLock { $0 = loaded }
                    }
                    sharedRevision.withLock { $0 = nil }  // until the commit is known to have held
                    return (try await body(transaction), transaction.revision)
                }
                // Committed: the store advanced the revision by one.
                sharedRevision.withLock { $0 = revision + 1 }
                return result
            } catch {
                sharedRevision.withLock { $0 = nil }
                throw error
            }
        }
    }
}
