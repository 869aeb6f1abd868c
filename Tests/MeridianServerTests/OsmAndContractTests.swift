import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// `GET|POST /v1/ingest/osmand` with the sample requests of Traccar's `OsmAndProtocolDecoderTest`,
/// checked field by field. Speeds in knots are expected as the exact 1852/3600 m/s (Python's
/// `fractions`), battery percentages as the exact hundredths.
@Suite(.watchdog) struct OsmAndContractTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var query: String, device: String, fix: AnyJSON
        var testDescription: String { query }
    }

    static let samples: [Sample] = [
        Sample(query: "id=902064&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0", device: "902064", fix: [
            "coordinate": ["latitude": 42.06288, "longitude": -88.23412], "timestamp": "2016-01-27T18:55:47.000Z",
            "horizontalAccuracy": 0, "altitude": 224, "speed": 0, "attributes": ["hdop": 6]]),
        Sample(query: "id=902064&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0&altitude=224.0&speed=0.0", device: "902064", fix: [
            "coordinate": ["latitude": 42.06288, "longitude": -88.23412], "timestamp": "2015-09-12T14:38:06.579Z",
            "horizontalAccuracy": 0, "altitude": 224, "speed": 0, "attributes": ["hdop": 6]]),
        Sample(query: "lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=0.0&id=353861053849681", device: "353861053849681", fix: [
            "coordinate": ["latitude": 49.60688, "longitude": 6.15788], "timestamp": "2014-06-04T09:10:11.000Z",
            "horizontalAccuracy": 0, "altitude": 384.7, "speed": 0]),
        Sample(query: "id=123456&timestamp=1377177267&lat=60.0&lon=30.0&speed=0.0&bearing=0.0&altitude=0&hdop=0.0", device: "123456", fix: [
            "coordinate": ["latitude": 60, "longitude": 30], "timestamp": "2013-08-22T13:14:27.000Z",
            "horizontalAccuracy": 0, "altitude": 0, "speed": 0, "course": 0, "attributes": ["hdop": 0]]),
        Sample(query: "id=123456&timestamp=1377177267&lat=60.0&lon=30.0", device: "123456", fix: [
            "coordinate": ["latitude": 60, "longitude": 30], "timestamp": "2013-08-22T13:14:27.000Z", "horizontalAccuracy": 0]),
        Sample(query: "id=123456&timestamp=1377177267&location=60.0,30.0", device: "123456", fix: [
            "coordinate": ["latitude": 60, "longitude": 30], "timestamp": "2013-08-22T13:14:27.000Z", "horizontalAccuracy": 0]),
        Sample(query: "id=123456789012345&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24",
               device: "123456789012345", fix: [
                "coordinate": ["latitude": 40.7232948571, "longitude": -74.0061408571], "timestamp": "2017-09-07T05:56:50.000Z",
                "horizontalAccuracy": 0, "course": 7.19889788244,
                "speed": 20.57777777777778,  // 40 kn × 1852/3600
                "attributes": ["ignition": true, "rpm": 933, "fuel": 24]]),
        // GPSLogger's own placeholders: accuracy, battery and a charging flag.
        Sample(query: "id=gpslogger&lat=41.666667&lon=-0.883333&timestamp=1504763810&accuracy=12.5&batt=87&charge=true&altitude=350.059479",
               device: "gpslogger", fix: [
                "coordinate": ["latitude": 41.666667, "longitude": -0.883333], "timestamp": "2017-09-07T05:56:50.000Z",
                "horizontalAccuracy": 12.5, "altitude": 350.059479, "attributes": ["batteryLevel": 0.87, "charging": true]]),
    ]

    @Test(arguments: samples) func querySampleIsStoredWithItsFields(sample: Sample) async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.get, "/v1/ingest/osmand?\(sample.query)")
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            #expect(response.body.readableBytes == 0)
            #expect(try await client.storedFixes(sample.device) == [sample.fix])
        }
    }

    @Test(arguments: samples.prefix(3)) func theSameParametersPostedAsAFormOrQuery(sample: Sample) async throws {
        try await TestApp.withClient { client in
            let form = try await client.raw(.post, "/v1/ingest/osmand", body: sample.query, contentType: "application/x-www-form-urlencoded")
            #expect(form.status == .ok && form.body.readableBytes == 0, "\(String(buffer: form.body))")
            let query = try await client.raw(.post, "/v1/ingest/osmand?\(sample.query)")  // Traccar Client's POST: parameters in the URL
            #expect(query.status == .ok)
            #expect(try await client.storedFixes(sample.device) == [sample.fix])
        }
    }

    /// Parameters in both the query and the form: every occurrence must read, the form's is kept (found by the contract fuzz).
    @Test func anUnreadableParameterInTheQueryIsRefusedWhateverTheFormSays() async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/osmand?timestamp=", body: "id=123456&lat=60&lon=30&timestamp=1377177267",
                                                contentType: "application/x-www-form-urlencoded")
            #expect(try response.problem(.badRequest).errors?.map(\.parameter) == ["timestamp"])
            #expect(try await client.storedFixes("123456").isEmpty)
        }
    }

    /// HEAD is safe (RFC 9110 §9.2.1): answered as the GET, checked alike, nothing stored.
    @Test func headIsAnsweredAsTheGetWithoutStoring() async throws {
        try await TestApp.withClient { client in
            let head = try await client.raw(.head, "/v1/ingest/osmand?id=123456&lat=60&lon=30&timestamp=1377177267")
            #expect(head.status == .ok)
            #expect(try await client.raw(.head, "/v1/ingest/osmand?id=123456&lat=north&lon=30").status == .badRequest)
            #expect(try await client.storedFixes("123456").isEmpty)
            #expect(try await client.raw(.get, "/v1/ingest/osmand?id=123456&lat=60&lon=30&timestamp=1377177267").status == .ok)
            #expect(try await client.storedFixes("123456").count == 1)
        }
    }

    /// Traccar Client's push-token upload (push_service.dart): no position; Traccar answers 200.
    @Test func aNotificationTokenWithoutAPositionIsAcknowledged() async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/osmand", body: "id=123456&notificationToken=abc%3Adef",
                                                contentType: "application/x-www-form-urlencoded")
            #expect(response.status == .ok)
            #expect(try await client.storedFixes("123456").isEmpty)
            #expect(try await client.raw(.post, "/v1/ingest/osmand", body: "id=123456", contentType: "application/x-www-form-urlencoded").status == .badRequest)
        }
    }

    @Test func withoutATimestampTheFixIsStampedOnArrival() async throws {
        try await TestApp.withClient { client in
            let before = Date()
            // Two samples without a timestamp: heading for bearing, deviceid for id, batt as a battery level.
            #expect(try await client.raw(.get, "/v1/ingest/osmand?lat=60.0&lon=30.0&speed=0.0&heading=0.0&vacc=0&hacc=0&altitude=0&deviceid=123456").status == .ok)
            #expect(try await client.raw(.get, "/v1/ingest/osmand?id=861001000719969&lat=41.666667&lon=-0.883333&altitude=350.059479&speed=0.000000&batt=87").status == .ok)
            let first = try #require(try await client.storedFixes("123456").first)
            let second = try #require(try await client.storedFixes("861001000719969").first)
            for fix in [first, second] {
                guard case .string(let text)? = fix["timestamp"], let time = ISO8601DateFormatter.withFractions.date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
                    Issue.record("no timestamp in \(fix)"); continue
                }
                #expect(time.timeIntervalSince(before) > -1 && time.timeIntervalSinceNow < 1)
            }
            #expect(first["course"] == 0 && first["attributes"] == ["vacc": 0, "hacc": 0])
            #expect(second["attributes"] == ["batteryLevel": 0.87] && second["speed"] == 0 && second["altitude"] == 350.059479)
        }
    }

    static let jsonSamples: [(body: String, device: String, fix: AnyJSON)] = [
        (#"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}"#,
         "48241179", [
            "coordinate": ["latitude": 37.4219983, "longitude": -122.084], "timestamp": "2025-06-15T13:45:12.862Z", "horizontalAccuracy": 5,
            "speed": 0, "altitude": 5,
            "attributes": ["is_moving": false, "odometer": 0, "event": "motionchange", "activity": ["type": "still"], "batteryLevel": 1, "charging": false]]),
        (#"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{"device_string_test":"long_device_id","device_bool_test":true,"device_bool_false_test":false,"device_integer_test":1,"device_integer_twelve_test":12,"device_double_test":1.345,"device_very_long_double_test":1763636.3442},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}"#,
         "48241179", [
            "coordinate": ["latitude": 37.4219983, "longitude": -122.084], "timestamp": "2025-06-15T13:45:12.862Z", "horizontalAccuracy": 5,
            "speed": 0, "altitude": 5,
            "attributes": ["is_moving": false, "odometer": 0, "event": "motionchange", "activity": ["type": "still"], "batteryLevel": 1, "charging": false,
                           "device_string_test": "long_device_id", "device_bool_test": true, "device_bool_false_test": false, "device_integer_test": 1,
                           "device_integer_twelve_test": 12, "device_double_test": 1.345, "device_very_long_double_test": 1763636.3442]]),
        (#"{"location":{"extras":{},"mock":true,"coords":{"speed_accuracy":-1,"speed":-1,"longitude":-122.406417,"ellipsoidal_altitude":0,"floor":null,"heading_accuracy":-1,"latitude":37.785834000000001,"accuracy":5,"altitude_accuracy":-1,"altitude":0,"heading":-1},"is_moving":false,"age":188,"odometer":0,"uuid":"2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8","event":"motionchange","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown","confidence":100},"timestamp":"2025-05-09T04:11:30.579Z"},"device_id":"658765"}"#,
         "658765", [
            "coordinate": ["latitude": 37.785834, "longitude": -122.406417], "timestamp": "2025-05-09T04:11:30.579Z", "horizontalAccuracy": 5, "altitude": 0,
            "attributes": ["mock": true, "speed_accuracy": -1, "ellipsoidal_altitude": 0, "heading_accuracy": -1, "is_moving": false, "age": 188,
                           "odometer": 0, "uuid": "2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8", "event": "motionchange",
                           "activity": ["type": "unknown", "confidence": 100], "charging": false]]),
        (#"{"location":{"event":"motionchange","is_moving":false,"uuid":"0e9a2473-a9a7-4c00-997b-fb97d2154e75","timestamp":"2021-07-21T08:06:34.444Z","odometer":0,"coords":{"latitude":-6.1148096,"longitude":106.6837015,"accuracy":3.8,"speed":18.67,"speed_accuracy":0.26,"heading":63,"heading_accuracy":0.28,"altitude":35.7,"altitude_accuracy":3.8},"activity":{"type":"still","confidence":100},"battery":{"is_charging":false,"level":0.79},"extras":{}},"device_id":"8737767034"}"#,
         "8737767034", [
            "coordinate": ["latitude": -6.1148096, "longitude": 106.6837015], "timestamp": "2021-07-21T08:06:34.444Z", "horizontalAccuracy": 3.8,
            "speed": 18.67, "course": 63, "altitude": 35.7, "verticalAccuracy": 3.8,
            "attributes": ["event": "motionchange", "is_moving": false, "uuid": "0e9a2473-a9a7-4c00-997b-fb97d2154e75", "odometer": 0,
                           "speed_accuracy": 0.26, "heading_accuracy": 0.28, "activity": ["type": "still", "confidence": 100],
                           "batteryLevel": 0.79, "charging": false]]),
    ]

    @Test(arguments: 0..<4) func traccarClientJSONIsStoredWithItsFields(index: Int) async throws {
        let sample = Self.jsonSamples[index]
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/osmand", body: sample.body, contentType: "application/json")
            #expect(response.status == .ok && response.body.readableBytes == 0, "\(String(buffer: response.body))")
            #expect(try await client.storedFixes(sample.device) == [sample.fix])
        }
    }

    @Test(arguments: [
        ("timestamp=1377177267&lat=60.0&lon=30.0", "id"),  // Traccar's own refused sample: no device
        ("id=123456&timestamp=1377177267&cell=257,02,16,2224&wifi=00-14-22-01-23-45,-80", "lat"),  // no position: nothing to store
        ("id=123456&lat=north&lon=30.0", "lat"),
        ("id=123456&lat=60&lon=30&speed=fast", "speed"),
        ("id=123456&lat=60&lon=30&timestamp=yesterday", "timestamp"),
        ("id=123456&location=60", "location"),
        ("id=a%20b&lat=60&lon=30", "id"),
        ("id=123456&lat=60&lon=30&hdop=null", "hdop"),  // Traccar reads hdop as a number (found by the contract fuzz)
    ])
    func malformedQueriesAreRefusedAndNothingIsStored(query: String, parameter: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.get, "/v1/ingest/osmand?\(query)")
            #expect(try response.problem(.badRequest).errors?.map(\.parameter) == [parameter])
            #expect(try await client.storedFixes("123456").isEmpty)
        }
    }

    @Test(arguments: [
        (#"{"location":{"timestamp":"2021-07-21T08:06:34.444Z","coords":{"latitude":1,"longitude":2}}}"#, "/device_id"),
        (#"{"device_id":"123456","location":{"coords":{"latitude":1,"longitude":2}}}"#, "/location/timestamp"),
        (#"{"device_id":"123456","location":{"timestamp":"noon","coords":{"latitude":1,"longitude":2}}}"#, "/location/timestamp"),
        (#"{"device_id":"123456","location":{"timestamp":"2021-07-21T08:06:34.444Z"}}"#, "/location/coords"),
        (#"{"device_id":"123456","location":{"timestamp":"2021-07-21T08:06:34.444Z","coords":{"latitude":"1","longitude":2}}}"#, "/location/coords/latitude"),
    ])
    func malformedJSONIsRefusedAndNothingIsStored(body: String, pointer: String) async throws {
        try await TestApp.withClient { client in
            let response = try await client.raw(.post, "/v1/ingest/osmand", body: body, contentType: "application/json")
            #expect(try response.problem(.badRequest).pointers == [pointer])
            #expect(try await client.storedFixes("123456").isEmpty)
        }
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
