public import Timeline

/// What other processes' ingest commits changed in a tenant's tracking rows since a revision
/// (``TrackingTransaction/changes(since:)``): enough to bring a state current to that revision up
/// to the store's without reloading the tenant. Only ingest and status deadlines are caught up this
/// way; a subscription, registry, filter or erasure write since sends every process reloading.
public struct TrackingChanges: Sendable {
    /// The devices whose row was written since (rows as stored).
    public var devices: [DeviceState]
    /// The progress rows written since.
    public var progress: [ProgressKey: SubscriptionProgress]
    /// The status rows written since.
    public var statuses: [ProgressKey: DeviceStatus]
    /// Of the changed devices, when the last fix arrived and the accepted fix before it (as ``TrackingState/DeviceTail``).
    public var tails: [String: TrackingState.DeviceTail]
    /// The event log's last sequence (or the retention mark past it).
    public var lastSequence: Int64
    /// How many fixes the tenant has accepted (the counter ordinals are taken from; 0: unknown).
    public var acceptedFixes: Int64

    /// Nothing changed.
    public static let none = TrackingChanges(devices: [], progress: [:], statuses: [:], tails: [:], lastSequence: 0)

    public init(
        devices: [DeviceState], progress: [ProgressKey: SubscriptionProgress], statuses: [ProgressKey: DeviceStatus],
        tails: [String: TrackingState.DeviceTail], lastSequence: Int64, acceptedFixes: Int64 = 0
    ) {
        (self.devices, self.progress, self.statuses, self.tails, self.lastSequence) = (devices, progress, statuses, tails, lastSequence)
        self.acceptedFixes = acceptedFixes
    }
}

extension TrackingState {
    /// Takes in other processes' ingest commits: the state is then what loading the store gives.
    ///
    /// A progress row another process did not write since equals this state's value but for its
    /// last evaluated fix: each process's unwritten progress (``settle``) is the subscriptions that
    /// evaluated the device's last fix, and a batch writes every one that stops evaluating it. So
    /// for each changed device the written rows are taken and its unwritten marks derived again
    /// from its new last fix, as loading derives them.
    public mutating func catchUp(_ changes: TrackingChanges) {
        for device in changes.devices {
            devices[device.id] = device
            acceptedFixes = max(acceptedFixes, device.lastAcceptedOrdinal)
        }
        for (key, value) in changes.progress { setProgress(value, for: key) }
        for device in changes.devices {
            unsaved[device.id] = nil
            if let tail = changes.tails[device.id] { settle(device.id, tail) }
        }
        for (key, status) in changes.statuses { setStatus(status, for: key) }
        // Offline deadlines that follow a changed device's last fix, and those of the rows written.
        for device in changes.devices {
            for subscriptionId in statusRows[device.id] ?? [] { deriveDeadline(ProgressKey(subscriptionId: subscriptionId, deviceId: device.id)) }
        }
        for key in changes.statuses.keys { deriveDeadline(key) }
        lastSequence = max(lastSequence, changes.lastSequence)
        acceptedFixes = max(acceptedFixes, changes.acceptedFixes)
    }
}
