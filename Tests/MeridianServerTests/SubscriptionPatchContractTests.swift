import Foundation
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing
import TestSupport

/// `PATCH /v1/subscriptions/{id}` through the HTTP contract: a region edited in place keeps its id,
/// its events and its state with each device; moving it under a parked device flips that state once,
/// with a `regionChanged` event; names and properties travel with the subscription and its events.
@Suite(.watchdog) struct SubscriptionPatchContractTests {
    /// A 300 m circle `metres` east of the trace's origin.
    static func circle(at metres: Double, radius: Double = 300) -> String {
        Trace.circle(at: metres, radius: radius)
    }

    static func patch(_ client: some TestClientProtocol, _ id: String, _ json: String) async throws -> (status: HTTPResponse.Status, body: String) {
        let response = try await client.send(.patch, "/v1/subscriptions/\(id)", json: json)
        return (response.status, String(buffer: response.body))
    }

    typealias Change = WireSubscriptionChange

    @Test func aRegionMovedFromUnderAParkedDeviceExitsOnceAndEntersWhenMovedBack() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"region":\#(Self.circle(at: 0))}"#)
            // Parked at the origin: inside, one enter.
            _ = try await client.postFixes("van-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(5), 60)])
            #expect(try await client.events(of: region.id).events.map(\.type) == ["enter"])

            // Moved 2 km east: the parked device is 1.7 km outside, one exit.
            let away = try await Self.patch(client, region.id, #"{"region":\#(Self.circle(at: 2_000))}"#)
            #expect(away.status == .ok, "\(away.body)")
            let moved = try JSONDecoder().decode(Change.self, from: Data(away.body.utf8))
            #expect(moved.subscription.id == region.id)
            #expect(moved.events.map(\.type) == ["exit"] && moved.events.allSatisfy { $0.reason == "regionChanged" && $0.deviceId == "van-1" })
            #expect(moved.events.first?.location.coordinate.longitude == Trace.at(5).longitude)
            // Moved a little further: still outside, nothing.
            #expect(try await Self.patch(client, region.id, #"{"region":\#(Self.circle(at: 2_100))}"#).body.contains(#""events":[]"#))
            // Back over the device: one enter; a fix where it stands then changes nothing.
            let back = try JSONDecoder().decode(Change.self, from: Data(try await Self.patch(client, region.id, #"{"region":\#(Self.circle(at: 0))}"#).body.utf8))
            #expect(back.events.map(\.type) == ["enter"] && back.events.first?.reason == "regionChanged")
            #expect(try await client.postFixes("van-1", [Trace.fix(Trace.at(5), 120)]).events.isEmpty)

            let log = try await client.events(of: region.id).events
            #expect(log.map(\.type) == ["enter", "exit", "enter"])
            #expect(log.map(\.sequence) == log.map(\.sequence).sorted())
            let device = String(buffer: try await client.send(.get, "/v1/devices/van-1").body)
            #expect(device.contains(#""inside":true"#), "\(device)")
        }
    }

    @Test func aRegionMovedOverADeviceItNeverSawNearbyEntersIt() async throws {
        try await TestApp.withClient { client in
            // The device's fixes are 5 km from the region: evaluated outside its box, no progress kept.
            let region = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"region":\#(Self.circle(at: 5_000))}"#)
            _ = try await client.postFixes("van-2", [Trace.fix(Trace.at(0), 0)])
            let moved = try JSONDecoder().decode(Change.self, from: Data(try await Self.patch(client, region.id, #"{"region":\#(Self.circle(at: 0))}"#).body.utf8))
            #expect(moved.events.map(\.type) == ["enter"])
            // A device that posted before the region existed was never evaluated by it: nothing.
        }
    }

    @Test func editsThatMoveNoBoundaryEmitNothingAndApplyFromTheNextFix() async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","maxLocationAge":null,"region":\#(Self.circle(at: 0))}"#)
            _ = try await client.postFixes("van-3", [Trace.fix(Trace.at(0), 0)])
            let edit = try await Self.patch(client, region.id, #"{"hysteresis":10,"dwell":60,"notifyOnExit":false,"detect":["cross"]}"#)
            #expect(edit.status == .ok && edit.body.contains(#""events":[]"#), "\(edit.body)")
            let read = try await client.send(.get, "/v1/subscriptions/\(region.id)").decode(WireSubscription.self)
            #expect(read.hysteresis == 10 && read.dwell == 60 && read.notifyOnExit == false && read.detect == ["cross"])
            // Dwell from the next fix on; the exit is silent now.
            #expect(try await client.postFixes("van-3", [Trace.fix(Trace.at(0), 90)]).events.map(\.type) == ["dwell"])
            #expect(try await client.postFixes("van-3", [Trace.fix(Trace.at(2_000), 180)]).events.isEmpty)
            // Null removes what may be absent.
            let cleared = try await Self.patch(client, region.id, #"{"dwell":null,"detect":null}"#)
            #expect(!cleared.body.contains(#""dwell""#) && !cleared.body.contains(#""detect""#), "\(cleared.body)")
        }
    }

    @Test func namesAndPropertiesTravelWithTheSubscriptionAndItsEvents() async throws {
        try await TestApp.withClient { client in
            let created = try await client.send(.post, "/v1/subscriptions", json: #"{"type":"region","name":"Depot","properties":{"site":7,"tags":["a"]},"maxLocationAge":null,"region":\#(Self.circle(at: 0))}"#)
            let region = try created.decode(WireSubscription.self)
            #expect(region.name == "Depot" && String(buffer: created.body).contains(#""properties":{"site":7,"tags":["a"]}"#), "\(String(buffer: created.body))")
            let first = try await client.postFixes("van-4", [Trace.fix(Trace.at(0), 0)]).events
            #expect(first.map(\.subscriptionName) == ["Depot"])
            // Merge patch: a member replaced, one removed, one added; the name replaced.
            let edit = try await Self.patch(client, region.id, #"{"name":"Depot north","properties":{"site":8,"tags":null,"zone":"n"}}"#)
            #expect(edit.body.contains(#""name":"Depot north""#) && edit.body.contains(#""properties":{"site":8,"zone":"n"}"#), "\(edit.body)")
            let exit = try await client.send(.post, "/v1/devices/van-4/locations", json: Trace.batch([Trace.fix(Trace.at(2_000), 60)]))
            #expect(String(buffer: exit.body).contains(#""subscriptionName":"Depot north","subscriptionProperties":{"site":8,"zone":"n"}"#), "\(String(buffer: exit.body))")
            // Stored events keep the name they were emitted with.
            let log = String(buffer: try await client.send(.get, "/v1/events?after=0").body)
            #expect(log.contains(#""subscriptionName":"Depot","subscriptionProperties":{"site":7,"tags":["a"]}"#), "\(log)")
            // Null removes the name and empties the properties.
            let cleared = try await Self.patch(client, region.id, #"{"name":null,"properties":null}"#)
            #expect(!cleared.body.contains(#""name""#) && !cleared.body.contains(#""properties""#), "\(cleared.body)")
        }
    }

    @Test(arguments: [
        (#"{"distanceFilter":10}"#, 409, "/distanceFilter"),
        (#"{"hysteresis":-1}"#, 422, "/hysteresis"),
        (#"{"name":""}"#, 422, "/name"),
        (#"{"region":{"circle":{"center":{"latitude":0,"longitude":0},"radius":5}}}"#, 422, "/region/circle/radius"),
        (#"{"detect":["cross","cross"]}"#, 422, "/detect"),
        (#"{"type":"significantChange"}"#, 400, "/type"),
        (#"{"hysteresis":"far"}"#, 400, "/hysteresis"),
    ])
    func aBadPatchIsRefusedAtItsPlaceAndChangesNothing(body: String, status: Int, pointer: String) async throws {
        try await TestApp.withClient { client in
            let region = try await client.subscribe(#"{"type":"region","region":\#(Self.circle(at: 0))}"#)
            let answer = try await Self.patch(client, region.id, body)
            #expect(answer.status.code == status && answer.body.contains(#""pointer":"\#(pointer)""#), "\(answer.body)")
            let read = try await client.send(.get, "/v1/subscriptions/\(region.id)").decode(WireSubscription.self)
            #expect(read.hysteresis == 50)
        }
    }

    @Test func aRegionFieldOnASignificantChangeSubscriptionIs409AndUnknownOrDeletedIdsAre404And410() async throws {
        try await TestApp.withClient { client in
            let significant = try await client.subscribe(#"{"type":"significantChange"}"#)
            let answer = try await Self.patch(client, significant.id, #"{"region":\#(Self.circle(at: 0))}"#)
            #expect(answer.status == .conflict && answer.body.contains(#""pointer":"/region""#), "\(answer.body)")
            #expect(try await Self.patch(client, significant.id, #"{"distanceFilter":900}"#).body.contains(#""distanceFilter":900"#))
            #expect(try await Self.patch(client, "01a208ae-5de3-75fc-9cf6-fd2e3c7ac65e", #"{"name":"x"}"#).status == .notFound)
            _ = try await client.send(.delete, "/v1/subscriptions/\(significant.id)")
            #expect(try await Self.patch(client, significant.id, #"{"name":"x"}"#).status == .gone)
        }
    }
}
