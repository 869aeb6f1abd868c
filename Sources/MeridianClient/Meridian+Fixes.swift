extension Meridian {
    /// Sends a batch of fixes of one device (at most 1 000, in the order they were taken) and
    /// returns what happened to each and the events they caused, retrying as `retry` says when the
    /// server is busy (429), away (503), full (507) or the connection drops. Re-sending is safe:
    /// a fix the server already has comes back `duplicate`, so a batch whose answer was lost is
    /// simply sent again.
    public func send(
        _ fixes: [Components.Schemas.Fix], forDevice deviceID: String, retry: RetryPolicy = RetryPolicy()
    ) async throws -> Components.Schemas.IngestAnswer {
        let batch = Components.Schemas.LocationBatch(locations: fixes)
        return try await retry.run {
            let output = try await api.postLocations(path: .init(deviceId: deviceID), body: .json(batch))
            guard case .ok(let ok) = output else { throw MeridianError(answer: output) }
            return try ok.body.json
        }.answer
    }
}
