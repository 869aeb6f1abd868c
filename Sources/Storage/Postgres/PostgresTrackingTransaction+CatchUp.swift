import Logging
import PostgresNIO
import Timeline
import Tracking

/// Catching up with other instances' commits. Every device, progress and status row carries the
/// tracking revision that wrote it, so what changed since a revision is read by an index range,
/// not by reloading the tenant; a write other than ingest and status deadlines moves the tenant's
/// `tracking-structure` counter to its revision, and a state older than that reloads.
extension PostgresTrackingTransaction {
    /// The counter row holding the revision of the tenant's last write that catching up cannot follow.
    static let structureFeed = "tracking-structure"
    /// The counter row holding the revision of the tenant's last status deadlines (status rows changed without their device row).
    static let deadlinesFeed = "tracking-deadlines"
    /// The counter of accepted fixes, their ordinals' source.
    static let acceptedFeed = "tracking-accepted"

    /// What other instances' commits changed since `revision` (under the tenant's lock, or in a
    /// read-only snapshot before it); nil when a write since cannot be followed (reload).
    func changes(since revision: Int64) async throws -> TrackingChanges? {
        try await changes(since: revision, of: nil, locking: false)
    }

    /// What other instances' commits changed of `devices` since `revision`, after taking the
    /// tenant's lock shared and theirs; nil when a write since cannot be followed.
    func changes(lockingDevices devices: [String], since revision: Int64) async throws -> TrackingChanges? {
        try await changes(since: revision, of: devices, locking: true)
    }

    private func changes(since revision: Int64, of devices: [String]?, locking: Bool) async throws -> TrackingChanges? {
        let read = try await read(since: revision, of: devices, locking: locking)
        guard read.structure <= revision else { return nil }
        var changes = read.changes
        changes.devices.removeAll { $0.id == StoredProfile.ordinalFloorRow }
        return changes
    }
}
