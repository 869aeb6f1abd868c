import Timeline
import Tracking
import WireJSON

/// A device profile's or a group record's content as both engines store it: one JSON definition
/// column beside the key, version and time.
struct StoredProfile: Codable {
    var name: String?
    /// Free properties; absent when empty.
    var properties: [String: JSONValue]?
    /// Absent when none (a group record has none).
    var groups: [String]?
    /// Absent: none of its own.
    var ingestFilters: IngestFilters?

    /// The `device` row that only keeps the count of accepted fixes once the device holding the
    /// newest was erased (so no ordinal is issued twice): an id no device may have.
    static let ordinalFloorRow = ""

    init(_ profile: DeviceProfile) {
        name = profile.name
        properties = profile.properties.isEmpty ? nil : profile.properties
        groups = profile.groups.isEmpty ? nil : profile.groups
        ingestFilters = profile.ingestFilters
    }

    init(_ group: DeviceGroup) {
        properties = group.properties.isEmpty ? nil : group.properties
        ingestFilters = group.ingestFilters
    }

    func profile(id: String, version: Int64, updatedAt: Int64) -> DeviceProfile {
        DeviceProfile(
            id: id, name: name, properties: properties ?? [:], groups: groups ?? [], ingestFilters: ingestFilters, version: version,
            updatedAt: Instant(microseconds: updatedAt))
    }

    func group(name: String, version: Int64, updatedAt: Int64) -> DeviceGroup {
        DeviceGroup(name: name, properties: properties ?? [:], ingestFilters: ingestFilters, version: version, updatedAt: Instant(microseconds: updatedAt))
    }
}
