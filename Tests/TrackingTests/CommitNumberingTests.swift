import MapGeometry
import Testing
import Timeline
import Tracking

/// Plans numbered provisionally take the store's numbers: every event's sequence, and the
/// device's ordinal only where the plan accepted a fix (an older ordinal may fall in the range).
@Suite struct CommitNumberingTests {
    static let start = Instant(rfc3339: "2026-11-23T08:00:00Z")!

    static func fix(_ seconds: Double) -> LocationFix {
        LocationFix(coordinate: Coordinate(latitude: 45.5, longitude: -122.68), timestamp: start.adding(seconds: seconds), horizontalAccuracy: 5)
    }

    /// A state with one significant-change subscription and a device whose last accepted fix is ordinal 2.
    static func state() -> TrackingState {
        let subscription = Subscription(id: "s", maxLocationAge: nil, rule: .significantChange(SignificantChangeRule()), createdAt: start)
        return TrackingState(
            subscriptions: [subscription], devices: [DeviceState(id: "known", lastFix: fix(0), lastAcceptedOrdinal: 2)], progress: [:],
            lastSequence: 4, acceptedFixes: 4)
    }

    @Test func aPlanTakesTheStoresNumbersAndAnOlderOrdinalInTheRangeStays() {
        var state = Self.state()
        var ids = 0
        func id() -> String { ids += 1; return "e\(ids)" }
        var fresh = state.plan(deviceId: "new", fixes: [Self.fix(10), Self.fix(20)], receivedAt: Self.start.adding(seconds: 30), eventID: id)
        state.apply(fresh)
        // Late only: it accepts nothing, so its device keeps the store's ordinal.
        var late = state.plan(deviceId: "known", fixes: [Self.fix(-5)], receivedAt: Self.start.adding(seconds: 30), eventID: id)
        state.apply(late)
        #expect(fresh.events.map(\.sequence) == [5], "a first fix emits one event, numbered after the state's last")
        #expect(fresh.device.lastAcceptedOrdinal == 6)

        var numbering = CommitNumbering()
        numbering.numberedEvents(5...5, last: 17)  // another instance appended 12 events since
        numbering.numberedOrdinals(5...6, last: 41)
        fresh.renumber(numbering)
        late.renumber(numbering)
        #expect(fresh.events.map(\.sequence) == [17])
        #expect(fresh.device.lastAcceptedOrdinal == 41 && fresh.acceptedFixes == 41)
        #expect(late.device.lastAcceptedOrdinal == 2, "a plan that accepted nothing keeps the store's ordinal")
        state.renumber([fresh, late])
        #expect(state.lastSequence == 17 && state.acceptedFixes == 41)
        #expect(state.devices["new"]?.lastAcceptedOrdinal == 41 && state.devices["known"]?.lastAcceptedOrdinal == 2)
    }

    @Test func anOrdinalInsideAProvisionalRangeIsKeptWhenItsPlanAcceptedNothing() {
        var numbering = CommitNumbering()
        numbering.numberedOrdinals(1...3, last: 10)
        var state = TrackingState(subscriptions: [], devices: [DeviceState(id: "old", lastFix: Self.fix(0), lastAcceptedOrdinal: 2)],
                                  progress: [:], lastSequence: 0, acceptedFixes: 2)
        var plan = state.plan(deviceId: "old", fixes: [Self.fix(0)], receivedAt: Self.start.adding(seconds: 1), eventID: { "x" })
        #expect(plan.results.map(\.status) == [.duplicate])
        plan.renumber(numbering)
        #expect(plan.device.lastAcceptedOrdinal == 2, "2 lies in 1...3 but is the store's number already")
        state.renumber([plan])
        #expect(state.acceptedFixes == 2)
        #expect(numbering.ordinal(2) == 9 && numbering.ordinal(4) == 4 && !numbering.isIdentity && CommitNumbering().isIdentity)
    }
}
