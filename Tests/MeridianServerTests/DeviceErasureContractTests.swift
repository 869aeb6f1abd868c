import Foundation
import HTTPTypes
import HummingbirdTesting
import MeridianServer
import NIOCore
import Testing
import TestSupport

/// `DELETE /v1/devices/{deviceId}` through the HTTP contract: the device, its record, fixes and
/// progress go, and the events about it are reduced to `{"sequence": n, "erased": true}` where
/// the log is read, its numbering kept, across a restart.
@Suite(.watchdog) struct DeviceErasureContractTests {
    /// An event page entry: a whole event or an erased stub.
    struct Entry: Decodable, Equatable {
        var sequence: Int64
        var erased: Bool?
        var deviceId: String?
    }

    struct Page: Decodable { var events: [Entry]; var nextAfter: Int64 }

    @Test func anErasedDeviceLeavesOnlyItsEventsNumbers() async throws {
        var configuration = ServerConfiguration.testing
        configuration.databasePath = try await TestEngine.contract.freshPlace(persistent: true)
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let subscriptionId = try await client.subscribe(Trace.everyFix).id
            _ = try await client.postFixes("keep", [Trace.fix(Trace.at(0), 0)])
            _ = try await client.postFixes("gone", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(100), 60)])
            _ = try await client.postFixes("keep", [Trace.fix(Trace.at(100), 60)])
            _ = try await client.send(.put, "/v1/devices/gone", json: #"{"name":"Alice's phone","groups":["family"]}"#)

            _ = try await client.send(.delete, "/v1/devices/gone", headers: [.ifMatch: "\"2\""]).problem(.preconditionFailed)
            #expect(try await client.send(.delete, "/v1/devices/gone").status == .noContent)
            _ = try await client.send(.get, "/v1/devices/gone").problem(.notFound)
            _ = try await client.send(.delete, "/v1/devices/gone").problem(.notFound)
            let history = try await client.send(.get, "/v1/devices/gone/locations").decode(HistoryPage.self)
            #expect(history.locations.isEmpty)
            let listed = String(buffer: try await client.send(.get, "/v1/devices").body)
            #expect(!listed.contains("gone"), "\(listed)")

            let log = try await client.send(.get, "/v1/events?after=0").decode(Page.self)
            #expect(log.events == [
                Entry(sequence: 1, deviceId: "keep"), Entry(sequence: 2, erased: true), Entry(sequence: 3, erased: true), Entry(sequence: 4, deviceId: "keep"),
            ])
            let raw = String(buffer: try await client.send(.get, "/v1/subscriptions/\(subscriptionId)/events?after=1&limit=1").body)
            #expect(raw == #"{"events":[{"erased":true,"sequence":2}],"nextAfter":2}"#)
            // Nothing about the device is left in the log's text.
            let text = String(buffer: try await client.send(.get, "/v1/events?after=0").body)
            #expect(!text.contains("gone") && !text.contains("Alice"))
        }
        // After a restart: the same log, and the numbering goes on from 4.
        let again = try await buildApplication(configuration)
        try await again.test(.router) { client in
            let log = try await client.send(.get, "/v1/events?after=0").decode(Page.self)
            #expect(log.events.map(\.sequence) == [1, 2, 3, 4] && log.events.filter { $0.erased == true }.count == 2)
            _ = try await client.send(.get, "/v1/devices/gone").problem(.notFound)
            let next = try await client.postFixes("gone", [Trace.fix(Trace.at(0), 120)])
            #expect(next.events.map(\.sequence) == [5] && next.events.first?.type == "initial")
        }
    }

    @Test func aDeviceWithOnlyARecordIsErasedAndAnUnknownOneIsNotFound() async throws {
        try await TestApp.withClient { client in
            _ = try await client.send(.put, "/v1/devices/spare", json: #"{"name":"Spare"}"#)
            #expect(try await client.send(.delete, "/v1/devices/spare", headers: [.ifMatch: "\"1\""]).status == .noContent)
            _ = try await client.send(.get, "/v1/devices/spare").problem(.notFound)
            _ = try await client.send(.delete, "/v1/devices/never").problem(.notFound)
        }
    }
}
