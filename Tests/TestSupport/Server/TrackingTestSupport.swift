import Foundation
import Geodesy
import HTTPTypes
import HummingbirdTesting
import MapGeometry
import NIOCore
import Testing

/// Tracking answers as a client reads them off the wire.
public struct WireFix: Codable, Equatable, Sendable {
    public struct Coordinate: Codable, Equatable, Sendable { public var latitude: Double; public var longitude: Double }
    public var coordinate: Coordinate
    public var timestamp: String
    public var horizontalAccuracy: Double
    public var speed: Double?
}

public struct WireEvent: Decodable, Equatable, Sendable {
    public var id: String
    public var sequence: Int64
    public var subscriptionId: String
    public var subscriptionName: String?
    public var deviceId: String
    public var type: String
    public var reason: String?
    public var location: WireFix
    public var previousLocation: WireFix?
    public var occurredAt: String
    public var recordedAt: String
    public var interpolated: Bool?
}

public struct WireIngest: Decodable, Sendable {
    public struct Result: Decodable, Equatable, Sendable { public var index: Int; public var status: String; public var reason: String?; public var filteredBy: String? }
    public struct Skip: Decodable, Equatable, Sendable { public var index: Int; public var subscriptionId: String; public var reason: String }
    public var results: [Result]
    public var skipped: [Skip]
    public var events: [WireEvent]

    /// `status`, or `status:reason` (`late:outOfOrder`, `filtered:minDistance`).
    public var statuses: [String] { results.map { result in (result.reason ?? result.filteredBy).map { "\(result.status):\($0)" } ?? result.status } }
}

public struct WireSubscription: Decodable, Sendable {
    public var id: String
    public var name: String?
    public var type: String
    public var deviceIds: [String]?
    public var maxLocationAge: Double?
    public var distanceFilter: Double?
    public var minimumInterval: Double?
    public var hysteresis: Double?
    public var notifyOnEntry: Bool?
    public var notifyOnExit: Bool?
    public var initialTrigger: Bool?
    public var dwell: Double?
    public var detect: [String]?
    public var createdAt: String
    public var deletedAt: String?
}

public struct WireEventPage: Decodable, Sendable { public var events: [WireEvent]; public var nextAfter: Int64 }

/// Fixes laid out east of a start point with PROJ's geodesic direct problem, stamped from a past instant.
public enum Trace {
    public static let origin = Coordinate(latitude: 45.52, longitude: -122.681944)
    public static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    public static func at(_ metres: Double, azimuth: Double = 90) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, azimuth: azimuth, distance: metres).coordinate
    }

    public static func time(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: start.addingTimeInterval(seconds))
    }

    public static func fix(_ coordinate: Coordinate, _ seconds: Double, accuracy: Double = 5) -> String {
        #"{"coordinate":{"latitude":\#(coordinate.latitude),"longitude":\#(coordinate.longitude)},"timestamp":"\#(time(seconds))","horizontalAccuracy":\#(accuracy)}"#
    }

    public static func batch(_ fixes: [String]) -> String { #"{"locations":[\#(fixes.joined(separator: ","))]}"# }

    /// A subscription that reports every fix of every device.
    public static let everyFix = #"{"type":"significantChange","distanceFilter":0,"minimumInterval":0,"maxLocationAge":null}"#

    /// A region of `radius` metres `metres` east of the origin, as a subscription's `region`.
    public static func circle(at metres: Double, radius: Double = 300) -> String {
        let centre = at(metres)
        return #"{"circle":{"center":{"latitude":\#(centre.latitude),"longitude":\#(centre.longitude)},"radius":\#(radius)}}"#
    }

    /// A region subscription (plus `extra` members) on the 300 m circle that fixes 4 166 m apart
    /// along the trace cross between fixes.
    public static func crossedCircle(_ extra: String) -> String {
        #"{"type":"region","maxLocationAge":null,"region":\#(circle(at: 4_166 * 2 + 2_000))\#(extra)}"#
    }
}

/// A `PATCH /v1/subscriptions/{id}` answer: the subscription as edited and the events the edit emitted.
public struct WireSubscriptionChange: Decodable, Sendable { public var subscription: WireSubscription; public var events: [WireEvent] }

extension TestClientProtocol {
    public func subscribe(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireSubscription {
        let response = try await send(.post, "/v1/subscriptions", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireSubscription.self)
    }

    public func postFixes(_ device: String, _ fixes: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> WireIngest {
        let response = try await send(.post, "/v1/devices/\(device)/locations", json: Trace.batch(fixes))
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
        return try response.decode(WireIngest.self)
    }

    public func events(of subscription: String, after: Int64 = 0, query: String = "") async throws -> WireEventPage {
        let response = try await send(.get, "/v1/subscriptions/\(subscription)/events?after=\(after)\(query)")
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try response.decode(WireEventPage.self)
    }
}

/// A page of a device's stored fixes.
public struct HistoryPage: Decodable, Sendable { public var locations: [WireFix]; public var nextFrom: String? }
