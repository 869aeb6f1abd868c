import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `PUT/PATCH/GET/DELETE /v1/devices/{deviceId}` through the HTTP contract: a device's record
/// beside its fixes, versioned like annotations; the list shows both kinds of device.
@Suite(.watchdog) struct DeviceRegistryContractTests {
    /// A device as GET answers it.
    struct WireDevice: Decodable {
        struct Filters: Decodable, Equatable { var maxHorizontalAccuracy: Double?; var minDistance: Double?; var minInterval: Double?; var maxSpeed: Double? }
        struct State: Decodable { var subscriptionId: String; var inside: Bool? }
        var id: String
        var name: String?
        var properties: [String: Double]?
        var groups: [String]?
        var ingestFilters: Filters?
        var version: Int64?
        var lastFix: WireFix?
        var subscriptions: [State]
    }

    struct WireDevicePage: Decodable {
        struct Summary: Decodable { var id: String; var name: String?; var groups: [String]?; var lastFix: WireFix? }
        var devices: [Summary]
        var nextCursor: String?
    }

    static func put(_ client: some TestClientProtocol, _ id: String, _ json: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await client.send(.put, "/v1/devices/\(id)", json: json, headers: headers)
    }

    @Test func aRecordIsCreatedReplacedPatchedAndVersioned() async throws {
        try await TestApp.withClient { client in
            let created = try await Self.put(client, "van-1", #"{"name":"Van 1","properties":{"seats":3},"groups":["north","fleet"],"ingestFilters":{"maxHorizontalAccuracy":50,"minDistance":null}}"#)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            #expect(created.headers[.eTag] == "\"1\"")
            let device = try created.decode(WireDevice.self)
            #expect(device.name == "Van 1" && device.properties == ["seats": 3] && device.groups == ["north", "fleet"] && device.version == 1)
            #expect(device.ingestFilters == .init(maxHorizontalAccuracy: 50) && device.lastFix == nil && device.subscriptions.isEmpty)

            // GET answers the same, with its ETag.
            let read = try await client.send(.get, "/v1/devices/van-1")
            #expect(read.status == .ok && read.headers[.eTag] == "\"1\"")
            #expect(try read.decode(WireDevice.self).groups == ["north", "fleet"])

            // PUT replaces whole: what it leaves out is gone.
            let replaced = try await Self.put(client, "van-1", #"{"name":"Van One"}"#)
            #expect(replaced.status == .ok && replaced.headers[.eTag] == "\"2\"")
            let whole = try replaced.decode(WireDevice.self)
            #expect(whole.name == "Van One" && whole.properties == nil && whole.groups == nil && whole.ingestFilters == nil)

            // PATCH merges (RFC 7386): properties and ingestFilters member by member, null removes.
            let merge: HTTPFields = [.contentType: "application/merge-patch+json"]
            _ = try await client.send(.patch, "/v1/devices/van-1", json: #"{"properties":{"seats":3,"doors":2},"ingestFilters":{"minInterval":10,"maxSpeed":70}}"#, headers: merge)
            let patched = try await client.send(.patch, "/v1/devices/van-1", json: #"{"name":null,"properties":{"doors":null},"ingestFilters":{"maxSpeed":null},"groups":["a"]}"#, headers: merge)
            #expect(patched.status == .ok && patched.headers[.eTag] == "\"4\"", "\(String(buffer: patched.body))")
            let after = try patched.decode(WireDevice.self)
            #expect(after.name == nil && after.properties == ["seats": 3] && after.ingestFilters == .init(minInterval: 10) && after.groups == ["a"])

            // If-Match: another version is 412 and changes nothing; the current one writes.
            var stale = merge
            stale[.ifMatch] = "\"3\""
            _ = try await client.send(.patch, "/v1/devices/van-1", json: #"{"name":"x"}"#, headers: stale).problem(.preconditionFailed)
            _ = try await Self.put(client, "van-1", #"{}"#, headers: [.ifMatch: "\"1\", \"2\""]).problem(.preconditionFailed)
            #expect(try await client.send(.get, "/v1/devices/van-1").decode(WireDevice.self).version == 4)
            #expect(try await Self.put(client, "van-1", #"{}"#, headers: [.ifMatch: "\"4\""]).status == .ok)
            // If-Match on a device with no record: 412, nothing created.
            _ = try await Self.put(client, "van-9", #"{}"#, headers: [.ifMatch: "*"]).problem(.preconditionFailed)
            _ = try await client.send(.get, "/v1/devices/van-9").problem(.notFound)
        }
    }

    @Test func aDeviceWithFixesAndNoRecordAndARecordWithoutFixesAreBothDevices() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("tracked", [Trace.fix(Trace.at(0), 0)])
            _ = try await Self.put(client, "parked", #"{"name":"Parked","groups":["depot"]}"#)

            let tracked = try await client.send(.get, "/v1/devices/tracked")
            #expect(tracked.status == .ok && tracked.headers[.eTag] == nil)
            let trackedDevice = try tracked.decode(WireDevice.self)
            #expect(trackedDevice.lastFix != nil && trackedDevice.version == nil && trackedDevice.name == nil)
            let parked = try await client.send(.get, "/v1/devices/parked").decode(WireDevice.self)
            #expect(parked.lastFix == nil && parked.name == "Parked")

            let page = try await client.send(.get, "/v1/devices").decode(WireDevicePage.self)
            #expect(page.devices.map(\.id) == ["parked", "tracked"])
            #expect(page.devices[0].name == "Parked" && page.devices[0].groups == ["depot"] && page.devices[0].lastFix == nil)
            #expect(page.devices[1].lastFix != nil)
            // Paged by id across both kinds.
            let first = try await client.send(.get, "/v1/devices?limit=1").decode(WireDevicePage.self)
            #expect(first.devices.map(\.id) == ["parked"] && first.nextCursor == "parked")
            let second = try await client.send(.get, "/v1/devices?limit=1&cursor=parked").decode(WireDevicePage.self)
            #expect(second.devices.map(\.id) == ["tracked"] && second.nextCursor == nil)
            // A place or time filter leaves out a device with no fix.
            let seen = try await client.send(.get, "/v1/devices?seenSince=2000-01-01T00:00:00Z").decode(WireDevicePage.self)
            #expect(seen.devices.map(\.id) == ["tracked"])

            // A record added to a tracked device keeps its fix; the fix keeps the record.
            _ = try await Self.put(client, "tracked", #"{"name":"T"}"#)
            _ = try await client.postFixes("parked", [Trace.fix(Trace.at(10), 10)])
            let both = try await client.send(.get, "/v1/devices").decode(WireDevicePage.self)
            #expect(both.devices.allSatisfy { $0.lastFix != nil && $0.name != nil })
        }
    }

    @Test func invalidRecordsAreRefusedNamingTheField() async throws {
        try await TestApp.withClient { client in
            let unknown = try await Self.put(client, "d", #"{"colour":"red","name":""}"#).problem(.unprocessableContent)
            #expect(Set(unknown.pointers) == ["/colour", "/name"])
            let groups = try await Self.put(client, "d", #"{"groups":["ok","no spaces","ok"]}"#).problem(.unprocessableContent)
            #expect(Set(groups.pointers) == ["/groups/1", "/groups/2"])
            let many = (0...32).map { #""g\#($0)""# }.joined(separator: ",")
            #expect(try await Self.put(client, "d", #"{"groups":[\#(many)]}"#).problem(.unprocessableContent).pointers == ["/groups"])
            let filters = try await Self.put(client, "d", #"{"ingestFilters":{"maxSpeed":0,"minDistance":-1,"other":1}}"#).problem(.unprocessableContent)
            #expect(Set(filters.pointers) == ["/ingestFilters/maxSpeed", "/ingestFilters/minDistance", "/ingestFilters/other"])
            let big = String(repeating: "x", count: 17_000)
            #expect(try await Self.put(client, "d", #"{"properties":{"note":"\#(big)"}}"#).problem(.unprocessableContent).pointers == ["/properties"])
            let patch = try await client.send(.patch, "/v1/devices/d", json: #"{"properties":5,"extra":null}"#).problem(.unprocessableContent)
            #expect(patch.pointers == ["/extra"])
            #expect(try await client.send(.patch, "/v1/devices/d", json: #"{"properties":5}"#).problem(.unprocessableContent).pointers == ["/properties"])
            _ = try await Self.put(client, "d", #"[1]"#).problem(.badRequest)
            let path = try await Self.put(client, "..", #"{}"#)
            #expect(path.status == .badRequest || path.status == .notFound)
            _ = try await Self.put(client, "a%20b", #"{}"#).problem(.badRequest)
            // Nothing was stored.
            _ = try await client.send(.get, "/v1/devices/d").problem(.notFound)
        }
    }
}
