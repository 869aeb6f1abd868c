extension TrackingState {
    /// The ingest filters a device's own record or one of its groups sets, in place of the
    /// tenant's (nil: the tenant's apply). The device registry supplies it; until then no device
    /// has any.
    public func ingestFilterOverride(for deviceId: String) -> IngestFilters? {
        nil
    }
}
