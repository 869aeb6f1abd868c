public import Timeline

// The device registry's writes, serialized with ingest like every tracking change.

extension Tracker {
    /// Writes a device's profile: `make` gets the current one (nil: none) and returns the new
    /// content; its version (the current one's plus one, or 1) and time are set here. When `make`
    /// throws, nothing changes.
    /// - Returns: the profile before (nil: created) and after.
    public func writeProfile(
        _ deviceId: String, _ make: @escaping @Sendable (DeviceProfile?) throws -> DeviceProfile
    ) async throws -> (before: DeviceProfile?, after: DeviceProfile) {
        try await writer.change { [now] state in
            let before = state.profiles[deviceId]
            var profile = try make(before)
            (profile.id, profile.version, profile.updatedAt) = (deviceId, (before?.version ?? 0) + 1, now())
            return ((before, profile), .profile(state.planProfile(profile)))
        }
    }

    /// Writes or removes (`make` returns nil) a group record: `make` gets the current one (nil:
    /// none); the version and time are set here. When `make` throws, nothing changes.
    /// - Returns: the record before and after (nil: removed or never there).
    public func writeGroup(
        _ name: String, _ make: @escaping @Sendable (DeviceGroup?) throws -> DeviceGroup?
    ) async throws -> (before: DeviceGroup?, after: DeviceGroup?) {
        try await writer.change { [now] state in
            let before = state.groups[name]
            guard var group = try make(before) else { return ((before, nil), before == nil ? nil : .group(name: name, nil)) }
            (group.name, group.version, group.updatedAt) = (name, (before?.version ?? 0) + 1, now())
            return ((before, group), .group(name: name, group))
        }
    }

    /// Erases a device (its profile, fixes, progress and the events about it) in one transaction,
    /// once `check` accepts its current profile (it throws to refuse).
    /// - Returns: false when nothing was known of the device.
    public func erase(_ deviceId: String, check: @escaping @Sendable (DeviceProfile?) throws -> Void) async throws -> Bool {
        try await writer.change { state in
            try check(state.profiles[deviceId])
            guard let erasure = state.planErasure(of: deviceId) else { return (false, nil) }
            return (true, .erasure(erasure))
        }
    }
}
