public import Timeline

// Status subscriptions in the tracking state: evaluated at each accepted fix of a device they
// cover (after the other subscriptions), and at their deadlines by the clock (``planDeadlines``).

extension TrackingState {
    /// Evaluates `fix` (accepted, at batch `index`) of the plan's device with every live status
    /// subscription covering it: first the deadlines the fix comes after (at their own times, with
    /// the device's location then), then `online`/`moving` and the new deadlines.
    func planStatuses(for fix: LocationFix, at index: Int, into plan: inout IngestPlan, sequence: inout Int64, eventID: () -> String) {
        // Those covering the device, and those with a status that may no longer (its groups changed).
        var candidates = statusRows[plan.deviceId] ?? []
        statusSubscriptions.forEach(covering: plan.deviceId, groups: profiles[plan.deviceId]?.groups) { candidates.insert($0) }
        for id in candidates.sorted() {
            guard let subscription = subscriptions[id], subscription.deletedAt == nil, case .status(let rule) = subscription.rule else { continue }
            let key = ProgressKey(subscriptionId: id, deviceId: plan.deviceId)
            let known = plan.statuses[key] ?? statuses[key]
            guard covers(subscription, plan.deviceId) else {
                pin(known, key, into: &plan)
                continue
            }
            if let reason = subscription.skipReason(for: fix, receivedAt: plan.receivedAt) {
                plan.skipped.append(.init(index: index, subscriptionId: id, reason: reason))
                pin(known, key, into: &plan)
                continue
            }
            var status = known ?? DeviceStatus()
            let before = plan.device.lastFix
            let reached = StatusEvaluation.reached(&status, by: fix.timestamp, inclusive: false)
            let emissions = StatusEvaluation.evaluate(rule, &status, fix, previous: before)
            if let before {
                for emission in reached {
                    sequence += 1
                    plan.events.append(event(emission, subscription, plan.deviceId, location: before, sequence: sequence, recordedAt: plan.receivedAt, id: eventID()))
                }
            }
            for emission in emissions {
                sequence += 1
                plan.events.append(event(emission, subscription, plan.deviceId, location: fix, sequence: sequence, recordedAt: plan.receivedAt, id: eventID()))
            }
            plan.statuses[key] = status
            // Unchanged, or only the deadline that follows the last fix moved: the row says the same.
            if let known, known == status || status.differsOnlyInDerivedDeadline(from: known) { continue }
            plan.savedStatuses.insert(key)
        }
    }

    /// A status that will not evaluate the device's fix about to be its latest: its `offline`
    /// deadline no longer follows the last fix, so it is written as it stands.
    private func pin(_ known: DeviceStatus?, _ key: ProgressKey, into plan: inout IngestPlan) {
        guard var status = known, status.followsLastFix else { return }
        status.followsLastFix = false
        plan.statuses[key] = status
        plan.savedStatuses.insert(key)
    }

    /// Loading: each `offline` deadline that follows the device's last fix is taken from the
    /// stored last fix (ingest does not write the row when only that deadline moves).
    mutating func deriveDeadlines() {
        for key in statuses.keys { deriveDeadline(key) }
    }

    /// ``deriveDeadlines()`` for one status.
    mutating func deriveDeadline(_ key: ProgressKey) {
        guard let status = statuses[key], status.followsLastFix, status.offlineAt != nil,
              case .status(let rule)? = subscriptions[key.subscriptionId]?.rule, let offlineAfter = rule.offlineAfter,
              let last = devices[key.deviceId]?.lastFix
        else { return }
        statuses[key]?.offlineAt = last.timestamp.adding(seconds: offlineAfter)
    }

    /// Sets (or with nil drops) where a status subscription stands with a device.
    mutating func setStatus(_ status: DeviceStatus?, for key: ProgressKey) {
        statuses[key] = status
        if status != nil {
            statusRows[key.deviceId, default: []].insert(key.subscriptionId)
        } else {
            statusRows[key.deviceId]?.remove(key.subscriptionId)
            if statusRows[key.deviceId]?.isEmpty == true { statusRows[key.deviceId] = nil }
        }
    }

    /// The earliest pending status deadline, if any (a scan: called when the timer wakes).
    public var nextStatusDeadline: Instant? {
        statuses.values.lazy.compactMap(\.nextDeadline).min()
    }

    /// The status deadlines due at `now` (at or before it), at most `limit` of them, in the order
    /// of their times (then device and subscription ids): each an event at the deadline with the
    /// device's last fix, recorded at `now`. A device the subscription no longer covers (its
    /// groups changed) has its deadlines dropped without an event.
    public func planDeadlines(upTo now: Instant, limit: Int, eventID: () -> String) -> DeadlinePlan {
        var plan = DeadlinePlan()
        var due: [(key: ProgressKey, emission: StatusEvaluation.Emission)] = []
        for (key, status) in statuses {
            guard let next = status.nextDeadline, next <= now else { continue }
            guard let subscription = subscriptions[key.subscriptionId], subscription.deletedAt == nil, covers(subscription, key.deviceId),
                  devices[key.deviceId]?.lastFix != nil
            else {
                plan.statuses[key] = DeviceStatus()
                continue
            }
            var copy = status
            for emission in StatusEvaluation.reached(&copy, by: now, inclusive: true) { due.append((key, emission)) }
        }
        due.sort { a, b in
            (a.emission.at, a.key.deviceId, a.key.subscriptionId, a.emission.kind.rawValue) < (b.emission.at, b.key.deviceId, b.key.subscriptionId, b.emission.kind.rawValue)
        }
        var sequence = lastSequence
        for (key, emission) in due.prefix(limit) {
            var status = plan.statuses[key] ?? statuses[key] ?? DeviceStatus()
            status.reach(emission.kind)
            plan.statuses[key] = status
            guard let subscription = subscriptions[key.subscriptionId], let location = devices[key.deviceId]?.lastFix else { continue }
            sequence += 1
            plan.events.append(event(emission, subscription, key.deviceId, location: location, sequence: sequence, recordedAt: now, id: eventID()))
        }
        return plan
    }

    /// Takes in fired deadlines (before their commit; a failed commit reloads the whole state).
    public mutating func apply(_ plan: DeadlinePlan) {
        for (key, status) in plan.statuses { setStatus(status, for: key) }
        lastSequence = plan.events.last?.sequence ?? lastSequence
    }

    /// The statuses an edit of `current` into `changed` rewrites (``StatusEvaluation/edited``).
    func statusesEdited(from current: Subscription, to changed: Subscription) -> [ProgressKey: DeviceStatus] {
        guard case .status(let old) = current.rule, case .status(let rule) = changed.rule, old != rule else { return [:] }
        var edited: [ProgressKey: DeviceStatus] = [:]
        for (key, status) in statuses where key.subscriptionId == current.id {
            edited[key] = StatusEvaluation.edited(status, from: old, to: rule, lastFix: devices[key.deviceId]?.lastFix)
        }
        return edited
    }

    /// Drops every status of `subscriptionId`, or of `deviceId`.
    mutating func forgetStatuses(subscriptionId: String? = nil, deviceId: String? = nil) {
        for key in statuses.keys where key.subscriptionId == subscriptionId || key.deviceId == deviceId { setStatus(nil, for: key) }
    }

    private func event(
        _ emission: StatusEvaluation.Emission, _ subscription: Subscription, _ deviceId: String, location: LocationFix,
        sequence: Int64, recordedAt: Instant, id: String
    ) -> TrackingEvent {
        TrackingEvent(
            id: id, sequence: sequence, subscriptionId: subscription.id, subscriptionName: subscription.name,
            subscriptionProperties: subscription.properties, deviceId: deviceId, kind: emission.kind,
            location: location, previousLocation: nil, occurredAt: emission.at, recordedAt: recordedAt)
    }
}

/// Status deadlines fired by the clock: their events and the statuses they leave, committed in
/// one transaction (the deadlines cleared with the events they caused).
public struct DeadlinePlan: Sendable {
    public var events: [TrackingEvent] = []
    public var statuses: [ProgressKey: DeviceStatus] = [:]

    public init() {}
}
