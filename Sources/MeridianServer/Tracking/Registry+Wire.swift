import MeridianAPI
import MeridianHTTP
import OpenAPIRuntime
import Timeline
import Tracking

// Wire ↔ domain for the device registry.

extension Components.Schemas.Device {
    /// A device as GET answers it: its record (if any), last fix (if any) and progress.
    init(id: String, profile: DeviceProfile?, state: DeviceState?, progress: [(subscriptionId: String, progress: SubscriptionProgress)]) {
        self.init(id: id, lastFix: state?.lastFix.map(Components.Schemas.Fix.init), subscriptions: progress.map { .init(subscriptionId: $0.subscriptionId, $0.progress) })
        guard let profile else { return }
        name = profile.name
        properties = profile.properties.isEmpty ? nil : OpenAPIObjectContainer(profile.properties)
        groups = profile.groups.isEmpty ? nil : profile.groups
        ingestFilters = profile.ingestFilters.map(Components.Schemas.IngestFilters.init)
        version = profile.version
    }
}

extension Components.Schemas.DeviceGroup {
    init(_ group: Tracking.DeviceGroup) {
        self.init(
            name: group.name, properties: group.properties.isEmpty ? nil : OpenAPIObjectContainer(group.properties),
            ingestFilters: group.ingestFilters.map(Components.Schemas.IngestFilters.init), version: group.version, updatedAt: group.updatedAt.rfc3339)
    }
}

extension DeviceProfile {
    /// The profile a document's content describes (the tracker sets its version and time).
    init(id: String, _ content: RegistryDocument.DeviceContent) {
        self.init(
            id: id, name: content.name, properties: content.properties, groups: content.groups, ingestFilters: content.ingestFilters,
            updatedAt: Instant(microseconds: 0))
    }

    /// The ETag of its version.
    var eTag: String { "\"\(version)\"" }
}
