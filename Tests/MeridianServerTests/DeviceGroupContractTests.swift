import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// Groups through the HTTP contract: group records (`/v1/device-groups`) carry settings; devices
/// name groups in their records; subscriptions that target a group follow who is in it, fix by fix.
@Suite(.watchdog) struct DeviceGroupContractTests {
    struct WireGroup: Decodable {
        struct Filters: Decodable, Equatable { var minDistance: Double?; var maxSpeed: Double? }
        var name: String
        var properties: [String: String]?
        var ingestFilters: Filters?
        var version: Int64
        var updatedAt: String
    }

    struct WireGroupPage: Decodable { var groups: [WireGroup]; var nextCursor: String? }

    @Test func groupRecordsAreCreatedReplacedListedAndDeleted() async throws {
        try await TestApp.withClient { client in
            let created = try await client.send(.put, "/v1/device-groups/fleet", json: #"{"properties":{"colour":"blue"},"ingestFilters":{"minDistance":25}}"#)
            #expect(created.status == .created && created.headers[.eTag] == "\"1\"", "\(String(buffer: created.body))")
            let group = try created.decode(WireGroup.self)
            #expect(group.name == "fleet" && group.properties == ["colour": "blue"] && group.ingestFilters == .init(minDistance: 25) && group.version == 1)
            let replaced = try await client.send(.put, "/v1/device-groups/fleet", json: #"{"ingestFilters":{"maxSpeed":60}}"#)
            #expect(replaced.status == .ok && replaced.headers[.eTag] == "\"2\"")
            #expect(try replaced.decode(WireGroup.self).properties == nil)
            _ = try await client.send(.put, "/v1/device-groups/depot", json: "{}")

            let page = try await client.send(.get, "/v1/device-groups?limit=1").decode(WireGroupPage.self)
            #expect(page.groups.map(\.name) == ["depot"] && page.nextCursor == "depot")
            let rest = try await client.send(.get, "/v1/device-groups?cursor=depot").decode(WireGroupPage.self)
            #expect(rest.groups.map(\.name) == ["fleet"] && rest.nextCursor == nil)
            let read = try await client.send(.get, "/v1/device-groups/fleet")
            let readGroup = try read.decode(WireGroup.self)
            #expect(read.headers[.eTag] == "\"2\"" && readGroup.ingestFilters == .init(maxSpeed: 60))

            _ = try await client.send(.delete, "/v1/device-groups/fleet", headers: [.ifMatch: "\"1\""]).problem(.preconditionFailed)
            #expect(try await client.send(.delete, "/v1/device-groups/fleet", headers: [.ifMatch: "\"2\""]).status == .noContent)
            _ = try await client.send(.get, "/v1/device-groups/fleet").problem(.notFound)
            _ = try await client.send(.delete, "/v1/device-groups/fleet").problem(.notFound)
            #expect(try await client.send(.get, "/v1/device-groups/a%20b").problem(.badRequest).errors?.first?.parameter == "group")
            let bad = try await client.send(.put, "/v1/device-groups/x", json: #"{"groups":["a"],"ingestFilters":{"minInterval":"soon"}}"#).problem(.unprocessableContent)
            #expect(Set(bad.pointers) == ["/groups", "/ingestFilters/minInterval"])
        }
    }

    @Test func aGroupSubscriptionCoversADeviceFromItsNextFixInTheGroupUntilItLeaves() async throws {
        try await TestApp.withClient { client in
            let byGroup = try await client.subscribe(#"{"type":"significantChange","groups":["fleet"],"distanceFilter":0,"minimumInterval":0,"maxLocationAge":null}"#)
            let created = String(buffer: try await client.send(.get, "/v1/subscriptions/\(byGroup.id)").body)
            #expect(created.contains(#""groups":["fleet"]"#), "\(created)")
            // Not in the group (no record): nothing.
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(0), 0)]).events.isEmpty)
            // In the group (no group record needed): covered from the next fix, as a first fix.
            _ = try await client.send(.put, "/v1/devices/van", json: #"{"groups":["north","fleet"]}"#)
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(100), 60)]).events.map(\.type) == ["initial"])
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(200), 120)]).events.map(\.type) == ["significantChange"])
            let listed = String(buffer: try await client.send(.get, "/v1/subscriptions?deviceId=van").body)
            #expect(listed.contains(byGroup.id))
            // Out of the group: no longer covered, its progress dropped.
            _ = try await client.send(.patch, "/v1/devices/van", json: #"{"groups":["north"]}"#)
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(300), 180)]).events.isEmpty)
            #expect(!String(buffer: try await client.send(.get, "/v1/devices/van").body).contains(byGroup.id))
            #expect(!String(buffer: try await client.send(.get, "/v1/subscriptions?deviceId=van").body).contains(byGroup.id))
            // Back in: starts afresh.
            _ = try await client.send(.patch, "/v1/devices/van", json: #"{"groups":["fleet"]}"#)
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(400), 240)]).events.map(\.type) == ["initial"])
        }
    }

    @Test func aDeviceInsideARegionLeavesTheGroupWithoutAnExitAndRejoinsByContainment() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","groups":["fleet"],"maxLocationAge":null,"region":\#(Trace.circle(at: 0))}"#)
            // A fix outside the group first: the region then meets it as a first fix when it joins.
            _ = try await client.postFixes("van", [Trace.fix(Trace.at(0), 0)])
            _ = try await client.send(.put, "/v1/devices/van", json: #"{"groups":["fleet"]}"#)
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(5), 60)]).events.map(\.type) == ["enter"])
            let inside = String(buffer: try await client.send(.get, "/v1/subscriptions/\(region.id)/occupants").body)
            #expect(inside.contains("van"))
            _ = try await client.send(.put, "/v1/devices/van", json: "{}")
            #expect(try await client.postFixes("van", [Trace.fix(Trace.at(5_000), 120)]).events.isEmpty)
            #expect(!String(buffer: try await client.send(.get, "/v1/subscriptions/\(region.id)/occupants").body).contains("van"))
            #expect(try await client.events(of: region.id).events.map(\.type) == ["enter"])
            // A device subscription may name a device and its group at once: one event per fix.
            let both = try await client.subscribe(#"{"type":"significantChange","deviceIds":["bus"],"groups":["fleet"],"distanceFilter":0,"minimumInterval":0,"maxLocationAge":null}"#)
            _ = try await client.send(.put, "/v1/devices/bus", json: #"{"groups":["fleet"]}"#)
            let fixes = try await client.postFixes("bus", [Trace.fix(Trace.at(3_000), 0)])
            #expect(fixes.events.filter { $0.subscriptionId == both.id }.count == 1)
        }
    }
}
