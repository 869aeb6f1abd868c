public import MapGeometry
public import Timeline

extension TrackingState {
    /// Editing `subscriptionId` at `at`; nil when it does not exist or is deleted.
    ///
    /// When a region's geometry changes, each device it has evaluated is evaluated again at the
    /// device's last fix against the new geometry, by the rule a fix follows once the device is
    /// classified: the state flips only `hysteresis + horizontalAccuracy` metres past the new
    /// boundary. Where it flips, `enter` or `exit` with reason `regionChanged` (when the region
    /// notifies it), at the change time. Nothing else is emitted; devices it never classified stay so.
    /// - Throws: ``FieldError`` when the change does not fit the subscription (``SubscriptionChange/applied(to:)``).
    public func planChange(of subscriptionId: String, _ change: SubscriptionChange, at: Instant, eventID: () -> String) throws(FieldError) -> ChangePlan? {
        guard let current = subscriptions[subscriptionId], current.deletedAt == nil else { return nil }
        var changed = try change.applied(to: current)
        changed.editedAfterFixes = acceptedFixes
        var plan = ChangePlan(subscription: changed)
        // Written whole: the store's rows then hold every last evaluated fix (its skip and relevance
        // rules, by which the rest is brought forward on load, may be what changes).
        for (deviceId, value) in progress(of: subscriptionId) { plan.progress[ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)] = value }
        plan.statuses = statusesEdited(from: current, to: changed)
        guard let rule = changed.region, let before = current.region, rule.shape != before.shape else { return plan }
        var sequence = lastSequence
        for deviceId in devicesEvaluated(by: current, within: rule.shape.bounds) {
            guard let fix = devices[deviceId]?.lastFix else { continue }
            let key = ProgressKey(subscriptionId: subscriptionId, deviceId: deviceId)
            // Without progress, the device was evaluated outside the region's box.
            var progress = self.progress[key] ?? SubscriptionProgress(inside: false)
            guard let inside = progress.inside else { continue }
            let distance = rule.shape.signedDistance(to: fix.coordinate)
            let margin = rule.hysteresis + fix.horizontalAccuracy
            let kind: TrackingEvent.Kind
            if inside, distance >= margin {
                (kind, progress.inside, progress.enteredAt) = (.exit, false, nil)
            } else if !inside, distance <= -margin {
                (kind, progress.inside, progress.enteredAt) = (.enter, true, at)
            } else {
                continue
            }
            progress.dwellNotified = false
            progress.lastEvaluated = fix
            plan.progress[key] = progress
            guard kind == .enter ? rule.notifyOnEntry : rule.notifyOnExit else { continue }
            sequence += 1
            plan.events.append(TrackingEvent(
                id: eventID(), sequence: sequence, subscriptionId: subscriptionId, subscriptionName: changed.name,
                subscriptionProperties: changed.properties, deviceId: deviceId, kind: kind, reason: TrackingEvent.regionChanged,
                location: fix, previousLocation: nil, occurredAt: at, recordedAt: at))
        }
        return plan
    }

    /// The devices `subscription` has evaluated that a new geometry within `bounds` may concern, in
    /// id order: those it keeps progress for, and those it evaluated outside its box (no progress)
    /// whose last fix lies within `bounds`.
    private func devicesEvaluated(by subscription: Subscription, within bounds: BoundingBox) -> [String] {
        var ids = Set(progress(of: subscription.id).map(\.deviceId))
        for (id, device) in devices where !ids.contains(id) && covers(subscription, id) && device.lastAcceptedOrdinal > subscription.acceptedFixesBefore {
            if let fix = device.lastFix, bounds.contains(fix.coordinate) { ids.insert(id) }
        }
        return ids.sorted()
    }
}

/// What editing a subscription will change.
public struct ChangePlan: Sendable {
    /// The subscription as edited.
    public var subscription: Subscription
    /// The `regionChanged` enters and exits.
    public var events: [TrackingEvent] = []
    /// Where it stands with every device it has evaluated (the flips included).
    public var progress: [ProgressKey: SubscriptionProgress] = [:]
    /// A status subscription's statuses with its deadlines recomputed.
    public var statuses: [ProgressKey: DeviceStatus] = [:]
}
