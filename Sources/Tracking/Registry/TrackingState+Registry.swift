public import Timeline

// The device registry in the tracking state: profiles, group records, erasure. A profile's groups
// decide which group-targeted subscriptions evaluate the device, from its next fix on.

extension TrackingState {
    /// Whether `subscription` evaluates fixes of `deviceId`, with the groups its profile names now.
    func covers(_ subscription: Subscription, _ deviceId: String) -> Bool {
        subscription.covers(deviceId, groups: profiles[deviceId]?.groups ?? [])
    }

    /// Writing `profile` (created or replaced whole). Group-targeted subscriptions that stop
    /// covering the device drop their progress with it, without an event (an inside device
    /// removed from the group leaves no `exit`: the subscription no longer watches it, and if it
    /// joins again it starts afresh); regions that start covering a device with fixes keep it
    /// unclassified, so its next fix is classified by plain containment, as a first fix.
    public func planProfile(_ profile: DeviceProfile) -> ProfilePlan {
        var plan = ProfilePlan(profile: profile)
        let before = profiles[profile.id]?.groups ?? [], after = profile.groups
        guard before != after else { return plan }
        for subscription in subscriptions.values where subscription.deletedAt == nil && subscription.groups != nil {
            let covered = subscription.covers(profile.id, groups: before), covers = subscription.covers(profile.id, groups: after)
            let key = ProgressKey(subscriptionId: subscription.id, deviceId: profile.id)
            if covered && !covers && progress[key] != nil {
                plan.dropped.insert(key)
            } else if !covered && covers && subscription.region != nil && devices[profile.id] != nil && progress[key] == nil {
                plan.started[key] = SubscriptionProgress()
            }
        }
        return plan
    }

    /// Takes in a profile write (before its commit; a failed commit reloads the whole state).
    public mutating func apply(_ plan: ProfilePlan) {
        profiles[plan.profile.id] = plan.profile
        for key in plan.dropped { forget(key) }
        for (key, value) in plan.started { setProgress(value, for: key) }
    }

    /// Takes in a group record written (or removed: `group` nil for `name`).
    public mutating func setGroup(_ group: DeviceGroup?, named name: String) {
        groups[name] = group
    }

    /// Erasing `deviceId`: nil when nothing is known of it (no fix, no profile).
    public func planErasure(of deviceId: String) -> DeviceErasure? {
        guard devices[deviceId] != nil || profiles[deviceId] != nil else { return nil }
        return DeviceErasure(deviceId: deviceId, lastAcceptedOrdinal: devices[deviceId]?.lastAcceptedOrdinal ?? 0, acceptedFixes: acceptedFixes)
    }

    /// Takes in an erasure: the device, its profile and its progress gone (the count of accepted fixes stays).
    public mutating func apply(_ erasure: DeviceErasure) {
        devices[erasure.deviceId] = nil
        profiles[erasure.deviceId] = nil
        for key in progress.keys where key.deviceId == erasure.deviceId { forget(key) }
        forgetStatuses(deviceId: erasure.deviceId)
    }
}

/// What writing a device's profile will change.
public struct ProfilePlan: Sendable {
    public var profile: DeviceProfile
    /// Progress of group-targeted subscriptions that no longer cover the device (deleted).
    public var dropped: Set<ProgressKey> = []
    /// Regions that now cover a device with fixes, unclassified (written).
    public var started: [ProgressKey: SubscriptionProgress] = [:]
}

/// What erasing a device will change: its profile, fixes, progress and device row deleted, and
/// the events about it reduced to their sequence (and subscription), all in one transaction.
public struct DeviceErasure: Hashable, Sendable {
    public var deviceId: String
    /// The device's last accepted fix's ordinal (0: none).
    public var lastAcceptedOrdinal: Int64
    /// Fixes accepted across devices at the erasure: the store keeps this count, so ordinals are
    /// never issued twice even when the erased device held the newest.
    public var acceptedFixes: Int64
}
