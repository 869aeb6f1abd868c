import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import MapGeometry
import Testing
import TestSupport

/// A fix's free `attributes`: stored, returned wherever the fix is written, their numbers exact,
/// within the limits of free properties, and named by CQL2 filters on devices.
@Suite(.watchdog) struct FixAttributesContractTests {
    static func fix(_ seconds: Double, attributes: String) -> String {
        #"{"coordinate":{"latitude":1,"longitude":2},"timestamp":"\#(Trace.time(seconds))","horizontalAccuracy":5,"attributes":\#(attributes)}"#
    }

    static let attributes = #"{"batteryLevel":0.25,"charging":false,"count":9007199254740993,"tiny":1e-400,"motion":["driving",null],"sensor":{"t":-3.5}}"#

    @Test func attributesComeBackWhereverTheFixIsWritten() async throws {
        try await TestApp.withClient { client in
            let sub = try await client.subscribe(Trace.everyFix)
            // The fast route takes this batch; the escaped key sends the same one the generated way.
            let fast = try await client.send(.post, "/v1/devices/a-1/locations", json: Trace.batch([Self.fix(0, attributes: "{}"), Self.fix(10, attributes: Self.attributes)]))
            let generated = try await client.send(.post, "/v1/devices/a-2/locations",
                                                  json: Trace.batch([Self.fix(0, attributes: "{}"), Self.fix(10, attributes: Self.attributes)]).replacingOccurrences(of: #""locations""#, with: #""locat\u0069ons""#))
            #expect(fast.status == .ok && generated.status == .ok)
            for body in [String(buffer: fast.body), String(buffer: generated.body)] {
                // The event's location and previous location: an empty object is no attributes.
                #expect(body.contains(#""attributes":{"batteryLevel":0.25,"charging":false,"count":9007199254740993,"motion":["driving",null],"sensor":{"t":-3.5},"tiny":1e-400}"#), "\(body)")
                #expect(body.components(separatedBy: #""attributes""#).count == 2, "\(body)")
            }
            // The device's last fix (alone and listed), and the subscription's last evaluated and notified fix; one event per device.
            for (path, count) in [("/v1/devices/a-1/locations", 1), ("/v1/devices/a-1", 3), ("/v1/devices", 2), ("/v1/subscriptions/\(sub.id)/events", 2), ("/v1/events?after=0", 2)] {
                let body = String(buffer: try await client.send(.get, path).body)
                #expect(body.components(separatedBy: #""count":9007199254740993,"#).count == count + 1, "\(path): \(body)")
                #expect(body.contains(#""tiny":1e-400"#), "\(path)")
            }
        }
    }

    @Test func attributesBeyondTheLimitsAreRefused() async throws {
        try await TestApp.withClient { client in
            let many = "{" + (0...32).map { #""a\#($0)":1"# }.joined(separator: ",") + "}"
            let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
            let large = #"{"s":"\#(String(repeating: "x", count: 16 * 1024))"}"#
            for attributes in [many, #"{"d":\#(deep)}"#, large] {
                let response = try await client.send(.post, "/v1/devices/a-1/locations", json: Trace.batch([Self.fix(0, attributes: "{}"), Self.fix(10, attributes: attributes)]))
                #expect(try response.problem(.unprocessableContent).pointers == ["/locations/1/attributes"])
            }
            #expect(try await client.storedFixes("a-1").isEmpty)
            let wrong = try await client.send(.post, "/v1/devices/a-1/locations", json: Trace.batch([Self.fix(0, attributes: "[1]")]))
            _ = try wrong.problem(.badRequest)
        }
    }

    @Test func cql2FiltersOnDevicesNameAttributes() async throws {
        try await TestApp.withClient { client in
            _ = try await client.postFixes("low", [Self.fix(0, attributes: #"{"batteryLevel":0.1,"tid":"LO"}"#)])
            _ = try await client.postFixes("high", [Self.fix(0, attributes: #"{"batteryLevel":0.9}"#)])
            _ = try await client.postFixes("none", [Trace.fix(Trace.at(0), 0)])
            for (filter, ids) in [("attributes.batteryLevel < 0.2", ["low"]), ("attributes.tid = 'LO'", ["low"]), ("attributes.batteryLevel IS NULL", ["none"])] {
                let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let response = try await client.send(.get, "/ogc/collections/devices/items?filter=\(query)")
                #expect(response.status == .ok, "\(filter): \(String(buffer: response.body))")
                let page = try JSONDecoder().decode(AnyJSON.self, from: Data(response.body.readableBytesView))
                guard case .array(let features)? = page["features"] else { Issue.record("no features"); continue }
                #expect(features.compactMap { $0["id"] } == ids.map(AnyJSON.string), "\(filter)")
            }
        }
    }
}
