extension TrackingState {
    /// The ingest filters that override the tenant's for `deviceId`: its own settings if it has
    /// some, else those of the first of its groups (in the device's order) whose record has some,
    /// else nil (the tenant's apply).
    public func ingestFilterOverride(for deviceId: String) -> IngestFilters? {
        guard let profile = profiles[deviceId] else { return nil }
        if let own = profile.ingestFilters { return own }
        for name in profile.groups {
            if let settings = groups[name]?.ingestFilters { return settings }
        }
        return nil
    }
}
