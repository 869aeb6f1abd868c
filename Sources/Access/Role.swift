/// What a key may do within its tenant. Each role is a set of ``Permission``s; `admin` holds them all.
public enum Role: String, CaseIterable, Hashable, Sendable, Codable {
    /// Every read: GETs, thinning, conversions, streams.
    case reader
    /// A reader that also writes and imports annotations.
    case writer
    /// Location ingest only: what a device or a location relay holds.
    case feed
    /// Everything in its tenant, subscriptions included.
    case admin

    /// Whether this role grants `permission`.
    public func grants(_ permission: Permission) -> Bool {
        switch (self, permission) {
        case (.admin, _): true
        case (.writer, .read), (.writer, .writeAnnotations): true
        case (.reader, .read): true
        case (.feed, .ingestLocations): true
        default: false
        }
    }
}

/// What an operation needs from the key that calls it.
public enum Permission: String, CaseIterable, Hashable, Sendable {
    /// Reads of anything in the tenant, conversions, thinning, streams.
    case read
    /// Creating, changing, deleting and importing annotations.
    case writeAnnotations
    /// Posting location fixes.
    case ingestLocations
    /// Creating and deleting subscriptions, managing keys.
    case administer
}
