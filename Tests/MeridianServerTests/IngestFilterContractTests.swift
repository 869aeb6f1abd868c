import Foundation
import Geodesy
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapGeometry
import MeridianServer
import Testing
import TestSupport

/// The tenant's ingest filters: the settings resource, and what each rule does to a fix.
@Suite(.watchdog) struct IngestFilterContractTests {
    /// Geodesic metres between two of the trace's points (each limit below is set to a distance
    /// measured this way, so "exactly at the limit" is exact).
    static func metres(_ a: Coordinate, _ b: Coordinate) -> Double {
        Geodesic.wgs84.inverse(from: a, to: b).distance
    }

    @Test func theSettingsAreAResourceOffUntilSet() async throws {
        try await TestApp.withClient { client in
            let empty = try await client.send(.get, "/v1/ingest-filters")
            #expect(empty.status == .ok && String(buffer: empty.body) == "{}")
            let put = try await client.send(.put, "/v1/ingest-filters", json: #"{"maxHorizontalAccuracy":50,"minDistance":0,"minInterval":null,"maxSpeed":1e-3}"#)
            #expect(put.status == .ok)
            #expect(String(buffer: put.body) == #"{"maxHorizontalAccuracy":50,"maxSpeed":0.001,"minDistance":0}"#)
            #expect(String(buffer: try await client.send(.get, "/v1/ingest-filters").body) == String(buffer: put.body))

            // Out of range: 422 naming every field; unknown members: 400. Nothing changes.
            let refused = try await client.send(.put, "/v1/ingest-filters", json: #"{"minDistance":-1,"minInterval":-0.5,"maxSpeed":0,"maxHorizontalAccuracy":-3}"#)
            let problem = try refused.problem(.unprocessableContent)
            #expect(Set(problem.pointers) == ["/minDistance", "/minInterval", "/maxSpeed", "/maxHorizontalAccuracy"])
            _ = try await client.send(.put, "/v1/ingest-filters", json: #"{"minDistanse":5}"#).problem(.badRequest)
            _ = try await client.send(.put, "/v1/ingest-filters", json: #"{"minDistance":"5"}"#).problem(.badRequest)
            #expect(String(buffer: try await client.send(.get, "/v1/ingest-filters").body) == String(buffer: put.body))

            // `{}` turns every rule off.
            #expect(String(buffer: try await client.send(.put, "/v1/ingest-filters", json: "{}").body) == "{}")
            #expect(String(buffer: try await client.send(.get, "/v1/ingest-filters").body) == "{}")
        }
    }

    @Test func accuracyAboveTheLimitIsFilteredEqualIsKeptTheFirstFixToo() async throws {
        try await TestApp.withClient { client in
            try await client.putFilters(#"{"maxHorizontalAccuracy":20}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0, accuracy: 20.000001),  // the first fix is checked too
                Trace.fix(Trace.at(0), 10, accuracy: 20),
                Trace.fix(Trace.at(50), 20, accuracy: 20.5),
                Trace.fix(Trace.at(50), 5, accuracy: 21),        // late: filtered by accuracy all the same
                Trace.fix(Trace.at(60), 7, accuracy: 3),         // late and accurate: stored as history
            ])
            #expect(answer.statuses == ["filtered:maxHorizontalAccuracy", "accepted", "filtered:maxHorizontalAccuracy",
                                        "filtered:maxHorizontalAccuracy", "late:outOfOrder"])
            let history = try await client.get("/v1/devices/car-1/locations", as: HistoryPage.self)
            #expect(history.locations.map(\.timestamp) == [Trace.time(7), Trace.time(10)])
        }
    }

    @Test func distanceIsMeasuredFromTheLastKeptFixEqualIsKept() async throws {
        try await TestApp.withClient { client in
            let limit = Self.metres(Trace.at(0), Trace.at(100))
            try await client.putFilters(#"{"minDistance":\#(limit)}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0),     // first fix: nothing to measure from
                Trace.fix(Trace.at(100), 10),  // exactly the limit away: kept
                Trace.fix(Trace.at(150), 20),  // 50 m from the last kept fix
                Trace.fix(Trace.at(199), 30),  // 99 m from the last kept one (not 49 m from the filtered one)
                Trace.fix(Trace.at(250), 40),
            ])
            #expect(answer.statuses == ["accepted", "accepted", "filtered:minDistance", "filtered:minDistance", "accepted"])
            // In the next request too: the last kept fix is the device's newest accepted one.
            let next = try await client.postFixes("car-1", [Trace.fix(Trace.at(300), 50), Trace.fix(Trace.at(400), 60)])
            #expect(next.statuses == ["filtered:minDistance", "accepted"])
        }
    }

    @Test func intervalIsEventTimeAfterTheLastKeptFixEqualIsKept() async throws {
        try await TestApp.withClient { client in
            try await client.putFilters(#"{"minInterval":30}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(10), 30), Trace.fix(Trace.at(20), 59.999), Trace.fix(Trace.at(30), 60),
                Trace.fix(Trace.at(40), 30),  // the instant of a kept fix: a duplicate, whatever the filters say
            ])
            #expect(answer.statuses == ["accepted", "accepted", "filtered:minInterval", "accepted", "duplicate"])
        }
    }

    @Test func aJumpAboveTheSpeedIsFilteredEqualIsKept() async throws {
        try await TestApp.withClient { client in
            let speed = Self.metres(Trace.at(0), Trace.at(100)) / 10
            try await client.putFilters(#"{"maxSpeed":\#(speed)}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0),
                Trace.fix(Trace.at(100), 10),   // exactly the limit: kept
                Trace.fix(Trace.at(5_000), 20), // 490 m/s from the last kept fix: a jump
                Trace.fix(Trace.at(130), 10.5), // 60 m/s from the last kept fix
                Trace.fix(Trace.at(400), 50),   // 300 m in 40 s from the last kept fix
            ])
            #expect(answer.statuses == ["accepted", "accepted", "filtered:maxSpeed", "filtered:maxSpeed", "accepted"])
        }
    }

    @Test func theFirstRuleInTheSchemasOrderNamesTheFix() async throws {
        try await TestApp.withClient { client in
            try await client.putFilters(#"{"maxSpeed":1,"minInterval":60,"minDistance":100,"maxHorizontalAccuracy":10}"#)
            _ = try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0)])
            // Each of these breaks every rule after the one it is named by.
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(10), 5, accuracy: 50),  // all four
                Trace.fix(Trace.at(10), 6),                // minDistance, minInterval, maxSpeed
                Trace.fix(Trace.at(500), 7),               // minInterval, maxSpeed
                Trace.fix(Trace.at(500), 100),             // maxSpeed
                Trace.fix(Trace.at(500), 600),             // none
            ])
            #expect(answer.statuses == ["filtered:maxHorizontalAccuracy", "filtered:minDistance", "filtered:minInterval", "filtered:maxSpeed", "accepted"])
        }
    }

    /// Whose settings judge a posted fix: the device's own record (`{}` turns every rule off), else
    /// its first group with settings in the device's order, else the tenant's, and a change to a
    /// record is live from the next fix.
    @Test func aDevicesOwnSettingsThenItsFirstGroupsThenTheTenantsJudgeItsFixes() async throws {
        try await TestApp.withClient { client in
            try await client.putFilters(#"{"maxHorizontalAccuracy":10}"#)
            #expect(try await client.send(.put, "/v1/device-groups/north", json: #"{"ingestFilters":{"maxHorizontalAccuracy":50}}"#).status.code < 300)
            #expect(try await client.send(.put, "/v1/device-groups/bare", json: #"{"properties":{"note":"no settings"}}"#).status.code < 300)
            #expect(try await client.send(.put, "/v1/devices/own", json: #"{"groups":["north"],"ingestFilters":{}}"#).status.code < 300)
            #expect(try await client.send(.put, "/v1/devices/grouped", json: #"{"groups":["bare","north"]}"#).status.code < 300)
            #expect(try await client.send(.put, "/v1/devices/plain", json: #"{"groups":["bare"]}"#).status.code < 300)
            func verdicts(_ device: String, _ second: Double) async throws -> [String] {
                try await client.postFixes(device, [Trace.fix(Trace.at(0), second, accuracy: 30), Trace.fix(Trace.at(0), second + 1, accuracy: 60)]).statuses
            }
            #expect(try await verdicts("own", 0) == ["accepted", "accepted"])                                   // its own `{}`: all off
            #expect(try await verdicts("grouped", 0) == ["accepted", "filtered:maxHorizontalAccuracy"])         // north's 50
            #expect(try await verdicts("plain", 0) == ["filtered:maxHorizontalAccuracy", "filtered:maxHorizontalAccuracy"])  // the tenant's 10
            #expect(try await verdicts("stranger", 0) == ["filtered:maxHorizontalAccuracy", "filtered:maxHorizontalAccuracy"])

            // North's settings change, and the device drops its own: both live from the next fix.
            #expect(try await client.send(.put, "/v1/device-groups/north", json: #"{"ingestFilters":{"maxHorizontalAccuracy":100}}"#).status.code < 300)
            #expect(try await client.send(.put, "/v1/devices/own", json: #"{"groups":["north"]}"#).status.code < 300)
            #expect(try await verdicts("grouped", 10) == ["accepted", "accepted"])
            #expect(try await verdicts("own", 10) == ["accepted", "accepted"])
        }
    }

    @Test func aFilteredFixIsNeitherStoredNorEvaluatedAndIsCounted() async throws {
        try await TestApp.withClient { client in
            let subscription = try await client.subscribe(Trace.everyFix)
            try await client.putFilters(#"{"minDistance":100,"maxHorizontalAccuracy":30}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(10), 10), Trace.fix(Trace.at(20), 20), Trace.fix(Trace.at(500), 30, accuracy: 31),
            ])
            #expect(answer.statuses == ["accepted", "filtered:minDistance", "filtered:minDistance", "filtered:maxHorizontalAccuracy"])
            #expect(answer.events.map(\.type) == ["initial"] && answer.skipped.isEmpty)
            #expect(try await client.events(of: subscription.id).events.count == 1)
            let history = try await client.get("/v1/devices/car-1/locations", as: HistoryPage.self)
            #expect(history.locations.map(\.timestamp) == [Trace.time(0)])
            #expect(try await client.get("/v1/devices/car-1", as: DeviceAnswer.self).lastFix?.timestamp == Trace.time(0))

            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains(#"meridian_fixes_filtered_total{tenant="default",rule="minDistance"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"meridian_fixes_filtered_total{tenant="default",rule="maxHorizontalAccuracy"} 1"#))
            #expect(metrics.contains(#"meridian_fixes_ingested_total{tenant="default"} 1"#))
        }
    }

    @Test func aFixStoredBeforeTheFiltersIsStillADuplicate() async throws {
        try await TestApp.withClient { client in
            let batch = [Trace.fix(Trace.at(0), 0, accuracy: 80), Trace.fix(Trace.at(1), 1, accuracy: 80)]
            #expect(try await client.postFixes("car-1", batch).statuses == ["accepted", "accepted"])
            try await client.putFilters(#"{"maxHorizontalAccuracy":20,"minInterval":60}"#)
            // The newest one re-posted is a duplicate; so is an instant stored in the same batch.
            #expect(try await client.postFixes("car-1", [batch[1], Trace.fix(Trace.at(0), 90), Trace.fix(Trace.at(0), 90)]).statuses
                == ["duplicate", "accepted", "duplicate"])
        }
    }

    @Test func aLateFixAtAnInstantOfTheSameBatchIsADuplicateOnlyIfThatOneIsStored() async throws {
        try await TestApp.withClient { client in
            let kept = [Trace.fix(Trace.at(0), 0, accuracy: 5), Trace.fix(Trace.at(1), 100, accuracy: 5)]
            #expect(try await client.postFixes("car-1", kept).statuses == ["accepted", "accepted"])
            try await client.putFilters(#"{"maxHorizontalAccuracy":20}"#)
            let answer = try await client.postFixes("car-1", [
                Trace.fix(Trace.at(0), 0, accuracy: 5),    // the store holds it: a duplicate
                Trace.fix(Trace.at(0), 0, accuracy: 50),   // the same instant, nothing stored it here: filtered
                Trace.fix(Trace.at(2), 50, accuracy: 5),   // history, stored
                Trace.fix(Trace.at(2), 50, accuracy: 50),  // the instant the batch just stored: a duplicate
                Trace.fix(Trace.at(2), 50, accuracy: 5),
            ])
            #expect(answer.statuses == ["duplicate", "filtered:maxHorizontalAccuracy", "late:outOfOrder", "duplicate", "duplicate"])
        }
    }

    /// Settings are stored: a restart (SQLite) or another instance (PostgreSQL) has them, and
    /// rebuilds the last kept fix from storage.
    @Test func theSettingsSurviveARestartAndAreLiveOnEveryInstance() async throws {
        var configuration = try await TestApp.configuration()
        configuration.databasePath = try await TestEngine.contract.freshPlace(persistent: true)
        defer {
            if TestEngine.contract == .sqlite {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: configuration.databasePath + suffix) }
            }
        }
        try await buildApplication(configuration).test(.router) { client in
            try await client.putFilters(#"{"minInterval":60}"#)
            #expect(try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 0), Trace.fix(Trace.at(0), 10)]).statuses == ["accepted", "filtered:minInterval"])
        }
        let restarted = try await buildApplication(configuration)
        try await restarted.test(.router) { [configuration] client in
            #expect(String(buffer: try await client.send(.get, "/v1/ingest-filters").body) == #"{"minInterval":60}"#)
            #expect(try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 59), Trace.fix(Trace.at(0), 60)]).statuses == ["filtered:minInterval", "accepted"])
            guard TestEngine.contract == .postgres else { return }
            // Two instances at once: a change on one is in force for the next fix on the other.
            try await buildApplication(configuration).test(.router) { other in
                try await other.putFilters(#"{"minInterval":1000}"#)
                #expect(try await client.postFixes("car-1", [Trace.fix(Trace.at(0), 120)]).statuses == ["filtered:minInterval"])
                try await client.putFilters("{}")
                #expect(try await other.postFixes("car-1", [Trace.fix(Trace.at(0), 121)]).statuses == ["accepted"])
            }
        }
    }
}

extension TestClientProtocol {
    /// PUTs the tenant's ingest filters, expecting them back as sent (keys sorted, nulls left out).
    func putFilters(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await send(.put, "/v1/ingest-filters", json: json)
        #expect(response.status == .ok, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
    }
}
