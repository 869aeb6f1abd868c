import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// `POST /v1/ingest/overland` with the `locations` of Overland's README example, checked field by field.
@Suite(.watchdog) struct OverlandContractTests {
    static let readme = #"""
        {"type":"Feature","geometry":{"type":"Point","coordinates":[-122.030581,37.331800]},"properties":{"timestamp":"2015-10-01T08:00:00-0700","altitude":0,"speed":4,"horizontal_accuracy":30,"vertical_accuracy":-1,"motion":["driving","stationary"],"pauses":false,"activity":"other_navigation","desired_accuracy":100,"deferred":1000,"significant_change":"disabled","locations_in_payload":1,"battery_state":"charging","battery_level":0.80,"device_id":"","wifi":""}}
        """#
    static let readmeFix: AnyJSON = [
        "coordinate": ["latitude": 37.3318, "longitude": -122.030581], "timestamp": "2015-10-01T15:00:00.000Z",
        "horizontalAccuracy": 30, "altitude": 0, "speed": 4,
        "attributes": ["motion": ["driving", "stationary"], "pauses": false, "activity": "other_navigation", "desired_accuracy": 100,
                       "deferred": 1000, "significant_change": "disabled", "locations_in_payload": 1, "battery_state": "charging",
                       "charging": true, "batteryLevel": 0.8, "wifi": ""],
    ]

    @Test func readmeExampleIsStoredWithItsFields() async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/overland?device_id=iphone", body: #"{"locations":[\#(Self.readme)]}"#, contentType: "application/json")
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == #"{"result":"ok"}"#)
            #expect(try await client.storedFixes("iphone") == [Self.readmeFix])
        }
    }

    @Test func eachLocationGoesToItsOwnDevice() async throws {
        let other = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.5,48.5]},"properties":{"timestamp":"2015-10-01T15:00:01Z","horizontal_accuracy":10,"speed":-1,"course":90,"battery_state":"unplugged","device_id":"ipad"}}"#
        let minimal = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.6,48.6]},"properties":{"timestamp":"2015-10-01T15:00:02Z"}}"#
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/overland?device_id=iphone",
                                                body: #"{"locations":[\#(Self.readme),\#(other),\#(minimal)],"current":{"type":"Feature"},"trip":{}}"#, contentType: "application/json")
            #expect(response.status == .ok && String(buffer: response.body) == #"{"result":"ok"}"#)
            #expect(try await client.storedFixes("iphone") == [Self.readmeFix, [
                "coordinate": ["latitude": 48.6, "longitude": 2.6], "timestamp": "2015-10-01T15:00:02.000Z", "horizontalAccuracy": 0]])
            #expect(try await client.storedFixes("ipad") == [[
                "coordinate": ["latitude": 48.5, "longitude": 2.5], "timestamp": "2015-10-01T15:00:01.000Z", "horizontalAccuracy": 10, "course": 90,
                "attributes": ["battery_state": "unplugged", "charging": false]]])
            // Every location names its device: the query parameter is not needed (the contract says it is optional).
            let named = try await client.raw(.post, "/v1/ingest/overland", body: #"{"locations":[\#(other.replacingOccurrences(of: "15:00:01", with: "15:00:09"))]}"#, contentType: "application/json")
            #expect(named.status == .ok && String(buffer: named.body) == #"{"result":"ok"}"#)
            #expect(try await client.storedFixes("ipad").count == 2)
        }
    }

    @Test(arguments: [
        (#"{"location":[]}"#, "/locations"),
        (#"{"locations":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{"timestamp":"2015-10-01T15:00:00Z","device_id":"iphone"}}]}"#, "/locations/0/geometry"),
        (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"device_id":"iphone"}}]}"#, "/locations/0/properties/timestamp"),
        (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"today","device_id":"iphone"}}]}"#, "/locations/0/properties/timestamp"),
        (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","device_id":"iphone"}},{"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:01Z","speed":"4","device_id":"iphone"}}]}"#, "/locations/1/properties/speed"),
        // A null where a type is documented is refused too (found by the contract fuzz).
        (#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","device_id":null}}]}"#, "/locations/0/properties/device_id"),
        (#"{"locations":[{"type":{},"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","device_id":"iphone"}}]}"#, "/locations/0/type"),
    ])
    func malformedUploadsAreRefusedAndNothingIsStored(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/overland", body: body, contentType: "application/json")
            #expect(try response.problem(.badRequest).pointers == [pointer])
            #expect(try await client.storedFixes("iphone").isEmpty)
        }
    }

    /// What Overland queues beside its fixes (GLManager.m): log actions (some without geometry),
    /// visits and trip summaries, stamped when written. Acknowledged, not stored; the fixes beside them are.
    @Test func actionsVisitsAndTripsAreAcknowledgedAndNotStored() async throws {
        let action = #"{"type":"Feature","properties":{"timestamp":"2015-10-01T15:00:05Z","action":"will_terminate","device_id":"iphone"}}"#
        let visit = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.03,37.33]},"properties":{"timestamp":"2015-10-01T15:00:06Z","action":"visit","arrival_date":"2015-10-01T14:00:00Z","departure_date":"2015-10-01T15:00:00Z","horizontal_accuracy":30,"device_id":"iphone"}}"#
        let trip = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"timestamp":"2015-10-01T15:00:07Z","type":"trip","mode":"car","start":"2015-10-01T14:30:00Z","end":"2015-10-01T14:59:00Z","distance":1200,"device_id":"iphone"}}"#
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/overland?device_id=iphone",
                                                body: #"{"locations":[\#(action),\#(Self.readme),\#(visit),\#(trip)]}"#, contentType: "application/json")
            #expect(response.status == .ok && String(buffer: response.body) == #"{"result":"ok"}"#)
            #expect(try await client.storedFixes("iphone") == [Self.readmeFix])
        }
    }

    @Test func anEmptyDeviceIdNeedsTheQueryParameter() async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/overland", body: #"{"locations":[\#(Self.readme)]}"#, contentType: "application/json")
            #expect(try response.problem(.badRequest).errors?.map(\.parameter) == ["device_id"])
        }
    }
}
