public import Timeline
public import WireJSON

/// Settings for the devices that name a group. A device may name a group that has no record: the
/// record only carries settings (its ingest filters, its free properties).
public struct DeviceGroup: Hashable, Sendable {
    public var name: String
    /// Free JSON the client keeps with it; empty when none.
    public var properties: [String: JSONValue]
    /// The ingest filters of its devices that have none of their own (the first of a device's
    /// groups with some wins); nil: none.
    public var ingestFilters: IngestFilters?
    /// Bumped by every write, from 1.
    public var version: Int64
    /// When it was last written (server clock).
    public var updatedAt: Instant

    public init(name: String, properties: [String: JSONValue] = [:], ingestFilters: IngestFilters? = nil, version: Int64 = 1, updatedAt: Instant) {
        self.name = name
        self.properties = properties
        self.ingestFilters = ingestFilters
        self.version = version
        self.updatedAt = updatedAt
    }

    /// What a group name may be: the same characters as a device id (it travels in a URL path too).
    public static let nameRule = DeviceIdentifier.rule

    /// Whether `name` may name a group.
    public static func isValid(name: String) -> Bool { DeviceIdentifier.isValid(name) }
}
