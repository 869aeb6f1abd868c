import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing

/// Tracking answers as a client reads them off the wire.
struct WireFix: Codable, Equatable, Sendable {
    struct Coordinate: Codable, Equatable, Sendable { var latitude: Double; var longitude: Double }
    var coordinate: Coordinate
    var timestamp: String
    var horizontalAccuracy: Double
    var speed: Double?
}

struct WireEvent: Decodable, Equatable, Sendable {
    var id: String
    var sequence: Int64
    var subscriptionId: String
    var subscriptionName: String?
    var deviceId: String
    var type: String
    var reason: String?
    var location: WireFix
    var previousLocation: WireFix?
    var occurredAt: String
    var recordedAt: String
    var interpolated: Bool?
}

struct WireIngest: Decodable {
    struct Result: Decodable, Equatable { var index: Int; var status: String; var reason: String? }
    struct Skip: Decodable, Equatable { var index: Int; var subscriptionId: String; var reason: String }
    var results: [Result]
    var skipped: [Skip]
    var events: [WireEvent]

    var statuses: [String] { results.map { result in result.reason.map { "\(result.status):\($0)" } ?? result.status } }
}

struct WireSubscription: Decodable {
    var id: String
    var name: String?
    var type: String
    var deviceIds: [String]?
    var maxLocationAge: Double?
    var distanceFilter: Double?
    var minimumInterval: Double?
    var hysteresis: Double?
    var notifyOnEntry: Bool?
    var notifyOnExit: Bool?
    var initialTrigger: Bool?
    var dwell: Double?
    var detect: [String]?
    var createdAt: String
    var deletedAt: String?
}

struct WireEventPage: Decodable { var events: [WireEvent]; var nextAfter: Int64 }

/// Fixes laid out east of a start point with PROJ's geodesic direct problem, stamped from a past instant.
enum Trace {
    static let origin = Coordinate(latitude: 45.52, longitude: -122.681944)
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    static func at(_ metres: Double, azimuth: Double = 90) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: metres).coordinate
    }

    static func time(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: start.addingTimeInterval(seconds))
    }

    static func fix(_ coordinate: Coordinate, _ seconds: Double, accuracy: Double = 5) -> String {
        #"{"coordinate":{"latitude":\#(coordinate.latitude),"longitude":\#(coordinate.longitude)},"timestamp":"\#(time(seconds))","horizontalAccuracy":\#(accuracy)}"#
    }

    static func batch(_ fixes: [String]) -> String { #"{"locations":[\#(fixes.joined(separator: ","))]}"# }
}

extension TestClientProtocol {
    func subscribe(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireSubscription {
        let response = try await send(.post, "/v1/subscriptions", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireSubscription.self)
    }

    func postFixes(_ device: String, _ fixes: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireIngest {
        let response = try await send(.post, "/v1/devices/\(device)/locations", json: Trace.batch(fixes))
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireIngest.self)
    }

    func events(of subscription: String, after: Int64 = 0, query: String = "") async throws -> WireEventPage {
        let response = try await send(.get, "/v1/subscriptions/\(subscription)/events?after=\(after)\(query)")
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try response.decode(WireEventPage.self)
    }
}
