import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// `POST /v1/ingest/owntracks` with the OwnTracks booklet's own messages, checked field by field
/// as `GET /v1/devices/{id}/locations` returns them. Expected speeds and battery levels are the
/// exact quotients (Python's `fractions`), written out.
@Suite(.watchdog) struct OwnTracksContractTests {
    static let limit: HTTPFields = [HTTPField.Name("X-Limit-U")!: "jane", HTTPField.Name("X-Limit-D")!: "nokia"]

    @Test func quickSetupMessageIsStoredWithItsFields() async throws {
        // booklet guide/quicksetup.md
        let message = #"{"_type":"location","SSID":"mywifi","alt":154,"batt":53,"conn":"w","created_at":1706856299,"lat":48.856826,"lon":2.292713,"tid":"j1","tst":1706856298,"vel":0}"#
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/owntracks", body: message, contentType: "application/json", headers: Self.limit)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == "[]")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(try await client.storedFixes("jane:nokia") == [[
                "coordinate": ["latitude": 48.856826, "longitude": 2.292713], "timestamp": "2024-02-02T06:44:58.000Z",
                "horizontalAccuracy": 0, "altitude": 154, "speed": 0,
                "attributes": ["SSID": "mywifi", "conn": "w", "created_at": 1706856299, "tid": "j1", "batteryLevel": 0.53],
            ]])
        }
    }

    @Test func unitsAreConvertedAndTheTopicNamesTheDevice() async throws {
        // booklet features/traccar.md: every optional field; no X-Limit-D, so the topic gives the device.
        let message = #"{"cog":271,"batt":41,"lon":2.29513,"acc":5,"vel":61,"vac":21,"lat":48.85833,"t":"u","tst":1497508651,"alt":167,"_type":"location","topic":"owntracks/jane/iphone","p":71,"tid":"JJ","bs":2}"#
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/owntracks", body: message, contentType: "application/json")
            #expect(response.status == .ok && String(buffer: response.body) == "[]")
            #expect(try await client.storedFixes("jane:iphone") == [[
                "coordinate": ["latitude": 48.85833, "longitude": 2.29513], "timestamp": "2017-06-15T06:37:31.000Z",
                "horizontalAccuracy": 5, "altitude": 167, "verticalAccuracy": 21, "course": 271,
                "speed": 16.944444444444443,  // 61 km/h × 5/18
                "attributes": ["t": "u", "topic": "owntracks/jane/iphone", "p": 71, "tid": "JJ", "bs": 2, "charging": true, "batteryLevel": 0.41],
            ]])
        }
    }

    @Test func minimalMessageAndUnknownBattery() async throws {
        // booklet tech/lua.md: batt -1 is unknown; no acc (0), no speed, altitude or course.
        let message = #"{"batt":-1,"lon":2.29513,"lat":48.85833,"t":"u","tst":1441984413,"_type":"location","tid":"JJ"}"#
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/owntracks?u=jane&d=phone", body: message, contentType: "application/json")
            #expect(response.status == .ok)
            #expect(try await client.storedFixes("jane:phone") == [[
                "coordinate": ["latitude": 48.85833, "longitude": 2.29513], "timestamp": "2015-09-11T15:13:33.000Z",
                "horizontalAccuracy": 0, "attributes": ["t": "u", "tid": "JJ"],
            ]])
        }
    }

    @Test func otherMessagesAndEmptyPayloadsAreAcknowledgedAndIgnored() async throws {
        try await TestApp.withClient { client in
            for body in [#"{"_type":"transition","wtst":1441984413,"lat":48.85833,"lon":2.29513,"tst":1441984413,"acc":5,"tid":"JJ","event":"enter"}"#,
                         #"{"_type":"waypoint","desc":"Home","lat":48.85833,"lon":2.29513,"tst":1441984413,"rad":50}"#, "", " \n"] {
                let response = try await client.raw(.post, "/v1/ingest/owntracks", body: body, contentType: "application/json", headers: Self.limit)
                #expect(response.status == .ok && String(buffer: response.body) == "[]", "\(body)")
            }
            #expect(try await client.storedFixes("jane:nokia").isEmpty)
        }
    }

    @Test(arguments: [
        (#"{"_type":"location","lon":2.29513,"tst":1441984413}"#, "/lat"),
        (#"{"_type":"location","lat":"48.8","lon":2.29513,"tst":1441984413}"#, "/lat"),
        (#"{"_type":"location","lat":48.8,"lon":2.29513}"#, "/tst"),
        (#"{"_type":"location","lat":48.8,"lon":2.29513,"tst":1441984413,"vel":"fast"}"#, "/vel"),
        (#"{"lat":48.8,"lon":2.29513,"tst":1441984413}"#, "/_type"),
        // Outside the years 0001…9999: no time an answer could write.
        (#"{"_type":"location","lat":48.8,"lon":2.29513,"tst":-99999999999}"#, "/tst"),
        (#"{"_type":"location","lat":48.8,"lon":2.29513,"tst":253402300800}"#, "/tst"),
    ])
    func malformedLocationsAreRefusedAndNothingIsStored(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/owntracks", body: body, contentType: "application/json", headers: Self.limit)
            #expect(try response.problem(.badRequest).pointers == [pointer])
            #expect(try await client.storedFixes("jane:nokia").isEmpty)
        }
    }

    @Test func notJSONOrNoDeviceIsRefused() async throws {
        try await TestApp.withClient { client in
            let location = #"{"_type":"location","lat":48.8,"lon":2.29513,"tst":1441984413}"#
            _ = try await client.raw(.post, "/v1/ingest/owntracks", body: "{lat:", contentType: "application/json", headers: Self.limit).problem(.badRequest)
            let anonymous = try await client.raw(.post, "/v1/ingest/owntracks", body: location, contentType: "application/json")
            #expect(try anonymous.problem(.badRequest).errors?.first?.parameter == "X-Limit-U")
            // An empty Basic user name (the key as the password alone) is no user: X-Limit-U names it.
            let keyOnly = try await client.raw(.post, "/v1/ingest/owntracks", body: location, contentType: "application/json", headers: [
                .authorization: "Basic " + Data(":secret".utf8).base64EncodedString(), HTTPField.Name("X-Limit-U")!: "jane", HTTPField.Name("X-Limit-D")!: "nokia"])
            #expect(keyOnly.status == .ok)
            #expect(try await client.storedFixes("jane:nokia").count == 1)
            let spaced = try await client.raw(.post, "/v1/ingest/owntracks", body: location, contentType: "application/json",
                                              headers: [HTTPField.Name("X-Limit-U")!: "jane doe", HTTPField.Name("X-Limit-D")!: "phone"])
            _ = try spaced.problem(.badRequest)
        }
    }
}
