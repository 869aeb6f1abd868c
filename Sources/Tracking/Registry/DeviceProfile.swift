public import Timeline
public import WireJSON

/// What the registry holds about a device beside its fixes: what the client calls it, its free
/// properties, the groups it belongs to and its own ingest filters. A device may have fixes and no
/// profile, or a profile and no fixes.
public struct DeviceProfile: Hashable, Sendable {
    public var id: String
    /// What the client calls it, if anything.
    public var name: String?
    /// Free JSON the client keeps with it (``FreeProperties``); empty when none.
    public var properties: [String: JSONValue]
    /// The groups it belongs to, in the client's order (the first with settings gives the device's
    /// ingest filters when it has none of its own), without repeats.
    public var groups: [String]
    /// Its own ingest filters; nil: none of its own (its groups' or the tenant's apply).
    public var ingestFilters: IngestFilters?
    /// Bumped by every write, from 1.
    public var version: Int64
    /// When it was last written (server clock).
    public var updatedAt: Instant

    public init(
        id: String, name: String? = nil, properties: [String: JSONValue] = [:], groups: [String] = [], ingestFilters: IngestFilters? = nil,
        version: Int64 = 1, updatedAt: Instant
    ) {
        self.id = id
        self.name = name
        self.properties = properties
        self.groups = groups
        self.ingestFilters = ingestFilters
        self.version = version
        self.updatedAt = updatedAt
    }

    /// Groups a device may belong to.
    public static let maxGroups = 32
}
