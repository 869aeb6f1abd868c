import Testing
import Timeline
import Tracking
import WireJSON

/// Which ingest filters override the tenant's for a device: its own, else its first group's
/// (in its order) that has some, else none.
@Suite struct IngestFilterOverrideTests {
    static let at = Instant(microseconds: 0)
    static let own = IngestFilters(minDistance: 5)
    static let north = IngestFilters(maxHorizontalAccuracy: 100)
    static let fleet = IngestFilters(maxSpeed: 70)

    static let state = TrackingState(
        subscriptions: [], devices: [], progress: [:], lastSequence: 0, acceptedFixes: 0,
        profiles: [
            DeviceProfile(id: "own", groups: ["fleet"], ingestFilters: own, updatedAt: at),
            DeviceProfile(id: "groups", groups: ["bare", "unrecorded", "north", "fleet"], updatedAt: at),
            DeviceProfile(id: "fleetFirst", groups: ["fleet", "north"], updatedAt: at),
            DeviceProfile(id: "none", groups: ["bare", "unrecorded"], updatedAt: at),
            DeviceProfile(id: "offOwn", ingestFilters: .off, updatedAt: at),
        ],
        groups: [
            DeviceGroup(name: "bare", properties: ["note": .string("no settings")], updatedAt: at),
            DeviceGroup(name: "north", ingestFilters: north, updatedAt: at),
            DeviceGroup(name: "fleet", ingestFilters: fleet, updatedAt: at),
        ])

    @Test(arguments: [
        ("own", own), ("groups", north), ("fleetFirst", fleet), ("none", nil), ("unknown", nil), ("offOwn", IngestFilters.off),
    ] as [(String, IngestFilters?)])
    func theDevicesOwnThenItsFirstGroupWithSettingsThenNone(device: String, expected: IngestFilters?) {
        #expect(Self.state.ingestFilterOverride(for: device) == expected)
    }
}
