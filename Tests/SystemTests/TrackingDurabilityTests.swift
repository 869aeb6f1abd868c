import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Acknowledged fixes and events survive `kill -9` in the middle of an ingest load: the real
/// `meridian` binary on a SQLite file takes batches from several concurrent clients, is killed
/// while requests are in flight, restarted on the same file, and asked for everything it
/// acknowledged. The event log must read back gap-free, one event per stored accepted fix.
@Suite(.watchdog, .sqliteFile) struct TrackingDurabilityTests {
    /// Concurrent clients, each on its own connection, each posting for its own devices in turn.
    static let writers = 4
    static let devicesPerWriter = 2
    static let fixesPerBatch = 20
    /// How long the load runs before the SIGKILL.
    static let load: Duration = .milliseconds(1500)
    /// A bound on each writer's batches, far above what the load reaches, so timestamps stay within one day.
    static let maxBatchesPerWriter = 1000

    @Test func acknowledgedFixesAndEventsSurviveSIGKILLDuringIngest() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let clock = ContinuousClock()
        let started = clock.now

        let first = try await ServerProcess.start(database: database.path)
        defer { first.kill() }
        let subscriptionId = try await TestClient.withClient(host: "127.0.0.1", port: first.port) { client in
            let response = try await client.execute(.request(
                .post, "/v1/subscriptions", json: #"{"type":"significantChange","distanceFilter":0,"minimumInterval":0,"maxLocationAge":null}"#))
            #expect(response.status == .created, "\(String(buffer: response.body ?? ByteBuffer()))")
            return try response.decode(WireSubscription.self).id
        }

        // The load: every writer posts until its connection fails; a separate task kills the server mid-load.
        let killSwitch = KillSwitch()
        let (port, pid) = (first.port, first.process.processIdentifier)
        let logs = try await withThrowingTaskGroup(of: WriterLog?.self) { group in
            for writer in 0..<Self.writers {
                group.addTask { await Self.write(writer: writer, port: port, killSwitch: killSwitch) }
            }
            group.addTask {
                try await Task.sleep(for: Self.load)
                // Kill once every writer has had a few batches acknowledged (a loaded test machine
                // may start some late), while a request is on its way.
                let deadline = ContinuousClock.now + .seconds(30)
                while killSwitch.writersUnderWay < Self.writers && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                while killSwitch.requestsInFlight == 0 && ContinuousClock.now < deadline { await Task.yield() }
                killSwitch.kill(pid)
                return nil
            }
            var logs: [WriterLog] = []
            for try await log in group { if let log { logs.append(log) } }
            return logs
        }
        await first.stop()  // reaps the killed process
        let loadEnded = clock.now

        let acknowledgedFixes = logs.reduce(into: [String: [String]]()) { $0.merge($1.acknowledgedFixes) { $0 + $1 } }
        let postedFixes = logs.reduce(into: [String: [String]]()) { $0.merge($1.postedFixes) { $0 + $1 } }
        let acknowledgedEvents = logs.reduce(into: [Int64: WireEvent]()) { $0.merge($1.acknowledgedEvents) { old, _ in old } }
        let acknowledgedBatches = logs.map(\.acknowledgedBatches).reduce(0, +)
        let inFlightAtKill = logs.filter(\.inFlightAtKill).count
        #expect(logs.count == Self.writers)
        #expect(logs.allSatisfy { $0.acknowledgedBatches > 0 }, "every writer had batches acknowledged before the kill")
        // The kill comes while the load runs: every writer was still posting and lost its connection.
        // (Whether the server had answered a last request the client was still reading is a race.)
        let endedByKill = logs.filter { $0.endedByKill }.count
        #expect(endedByKill == Self.writers, "the SIGKILL came during the load")
        #expect(acknowledgedEvents.count == acknowledgedFixes.values.map(\.count).reduce(0, +), "one event per acknowledged accepted fix")

        // Restart on the same file and read everything back.
        let second = try await ServerProcess.start(database: database.path)
        defer { second.kill() }
        let (storedFixCount, lastSequence, afterRestart) = try await TestClient.withClient(host: "127.0.0.1", port: second.port) { client in
            #expect(try await client.execute(.request(.get, "/v1/subscriptions/\(subscriptionId)")).status == .ok, "the subscription is lost")

            // Every acknowledged fix is in its device's history; a device's history is what was
            // acknowledged, plus at most the one batch in flight at the kill (all of it or none).
            var stored: [String: [String]] = [:]
            for device in postedFixes.keys.sorted() {
                let history = try await Self.history(of: device, client)
                stored[device] = history
                let acknowledged = acknowledgedFixes[device] ?? []
                let posted = postedFixes[device] ?? []
                let missing = Set(acknowledged).subtracting(history)
                #expect(missing.isEmpty, "device \(device): \(missing.count) acknowledged fixes lost, e.g. \(missing.sorted().prefix(3))")
                #expect(history.count == acknowledged.count || history.count == acknowledged.count + Self.fixesPerBatch,
                        "device \(device): \(history.count) fixes stored, \(acknowledged.count) acknowledged: a batch was stored in part")
                #expect(Array(posted.prefix(history.count)) == history, "device \(device): the history is not the posted fixes in order")
            }

            // The subscription's event log: exactly 1…N, N = the stored accepted fixes.
            let events = try await Self.events(of: subscriptionId, client)
            let sequences = events.map(\.sequence)
            let storedFixCount = stored.values.map(\.count).reduce(0, +)
            #expect(sequences == (0..<events.count).map { Int64($0) + 1 }, "the event log is not 1…\(events.count): a gap or a repeat")
            #expect(events.count == storedFixCount, "\(events.count) events for \(storedFixCount) stored accepted fixes")
            let bySequence = Dictionary(events.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
            for (sequence, acknowledged) in acknowledgedEvents.sorted(by: { $0.key < $1.key }) {
                guard let event = bySequence[sequence] else {
                    Issue.record("acknowledged event \(sequence) (device \(acknowledged.deviceId)) is lost")
                    continue
                }
                #expect(event.id == acknowledged.id && event.deviceId == acknowledged.deviceId
                        && event.location.timestamp == acknowledged.location.timestamp && event.type == acknowledged.type,
                        "event \(sequence) differs from the one acknowledged")
            }
            // Per device, the events are its stored fixes in order: `initial`, then `significantChange`.
            for (device, history) in stored {
                let ofDevice = events.filter { $0.deviceId == device }
                #expect(ofDevice.map(\.location.timestamp) == history, "device \(device): events and stored fixes differ")
                #expect(ofDevice.map(\.type) == (ofDevice.isEmpty ? [] : ["initial"] + Array(repeating: "significantChange", count: ofDevice.count - 1)))
            }

            // Ingest goes on where the log ends.
            let lastSequence = sequences.last ?? 0
            let device = Self.deviceId(writer: 0, slot: 0)
            let next = (postedFixes[device] ?? []).count
            let body = Self.batch(writer: 0, slot: 0, from: next, count: 3)
            let response = try await client.execute(.request(.post, "/v1/devices/\(device)/locations", json: body.json))
            #expect(response.status == .ok, "\(String(buffer: response.body ?? ByteBuffer()))")
            let answer = try response.decode(WireIngest.self)
            #expect(answer.results.map(\.status) == ["accepted", "accepted", "accepted"])
            #expect(answer.events.map(\.sequence) == [lastSequence + 1, lastSequence + 2, lastSequence + 3])
            #expect(answer.events.map(\.type) == ["significantChange", "significantChange", "significantChange"])
            let readBack = try await client.execute(.request(.get, "/v1/subscriptions/\(subscriptionId)/events?after=\(lastSequence)&limit=1000"))
            #expect(try readBack.decode(WireEventPage.self).events.map(\.sequence) == [lastSequence + 1, lastSequence + 2, lastSequence + 3])
            return (storedFixCount, lastSequence, answer.events.count)
        }

        let acknowledgedFixCount = acknowledgedFixes.values.map(\.count).reduce(0, +)
        print("""
            TrackingDurabilityTests: \(acknowledgedBatches) batches (\(acknowledgedFixCount) fixes, \(acknowledgedEvents.count) events) \
            acknowledged by \(Self.writers) writers over \(postedFixes.count) devices; \(inFlightAtKill) writers had a request in flight at the SIGKILL; \
            after restart \(storedFixCount) fixes stored, events 1…\(lastSequence) gap-free, then \(afterRestart) more from \(lastSequence + 1); \
            load \(loadEnded - started), total \(clock.now - started)
            """)
    }
}

// MARK: - The load

extension TrackingDurabilityTests {
    /// What one writer sent and what the server acknowledged.
    struct WriterLog: Sendable {
        /// Device → every fix timestamp posted, in order (acknowledged or not).
        var postedFixes: [String: [String]] = [:]
        /// Device → the fix timestamps of the batches answered 200.
        var acknowledgedFixes: [String: [String]] = [:]
        /// Sequence → the event an acknowledged answer carried.
        var acknowledgedEvents: [Int64: WireEvent] = [:]
        var acknowledgedBatches = 0
        /// Whether the writer's last request was sent before the kill and failed by it.
        var inFlightAtKill = false
        /// The writer stopped because its connection failed after the kill (not for running out of batches).
        var endedByKill = false
    }

    /// Set just before the SIGKILL, so a failure seen while it is unset is not the kill's doing.
    final class KillSwitch: Sendable {
        private let killed = Atomic<Bool>(false)
        private let inFlight = Atomic<Int>(0)
        var isKilled: Bool { killed.load(ordering: .sequentiallyConsistent) }
        var requestsInFlight: Int { inFlight.load(ordering: .sequentiallyConsistent) }
        func sending() { inFlight.add(1, ordering: .sequentiallyConsistent) }
        func answered() { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
        private let underWay = Atomic<Int>(0)
        /// Writers with at least three acknowledged batches.
        var writersUnderWay: Int { underWay.load(ordering: .sequentiallyConsistent) }
        func writerUnderWay() { underWay.add(1, ordering: .sequentiallyConsistent) }
        func kill(_ pid: Int32) {
            killed.store(true, ordering: .sequentiallyConsistent)
            _ = Foundation.kill(pid, SIGKILL)
        }
    }

    /// Posts batches for the writer's devices in turn until the connection fails (the kill).
    static func write(writer: Int, port: Int, killSwitch: KillSwitch) async -> WriterLog {
        var log = WriterLog()
        // 15 s: a loaded CI machine runs the whole suite beside this test; a hung server still fails it.
        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(15)))
        client.connect()
        var next = Array(repeating: 0, count: devicesPerWriter)
        for round in 0..<maxBatchesPerWriter {
            let slot = round % devicesPerWriter
            let device = deviceId(writer: writer, slot: slot)
            let batch = batch(writer: writer, slot: slot, from: next[slot], count: fixesPerBatch)
            next[slot] += fixesPerBatch
            log.postedFixes[device, default: []] += batch.timestamps
            let sentBeforeKill = !killSwitch.isKilled
            let response: TestClient.Response
            do {
                killSwitch.sending()
                defer { killSwitch.answered() }
                response = try await client.execute(.request(.post, "/v1/devices/\(device)/locations", json: batch.json))
            } catch {
                if !killSwitch.isKilled { Issue.record("writer \(writer) failed before the kill: \(error)") }
                log.inFlightAtKill = sentBeforeKill
                log.endedByKill = killSwitch.isKilled
                break
            }
            guard response.status == .ok else {
                Issue.record("writer \(writer): \(response.status) \(String(buffer: response.body ?? ByteBuffer()))")
                break
            }
            do {
                let answer = try response.decode(WireIngest.self)
                #expect(answer.results.map(\.status) == Array(repeating: "accepted", count: fixesPerBatch), "writer \(writer)")
                #expect(answer.events.map(\.location.timestamp) == batch.timestamps, "writer \(writer): one event per fix")
                log.acknowledgedFixes[device, default: []] += batch.timestamps
                for event in answer.events { log.acknowledgedEvents[event.sequence] = event }
                log.acknowledgedBatches += 1
                if log.acknowledgedBatches == 3 { killSwitch.writerUnderWay() }
            } catch {
                Issue.record("writer \(writer): unreadable answer: \(error)")
                break
            }
        }
        try? await client.shutdown()
        return log
    }

    static func deviceId(writer: Int, slot: Int) -> String { "durable-\(writer)-\(slot)" }

    /// `count` fixes of one device, one second apart from `2026-01-01T00:00:00Z` + `from` seconds.
    static func batch(writer: Int, slot: Int, from: Int, count: Int) -> (json: String, timestamps: [String]) {
        let timestamps = (from..<from + count).map { second in
            func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "2026-01-01T\(pad(second / 3600)):\(pad(second / 60 % 60)):\(pad(second % 60)).000Z"
        }
        let latitude = Double(10 * writer + slot)
        let fixes = timestamps.enumerated().map { offset, timestamp in
            let longitude = Double((from + offset) % 3600) / 100
            return #"{"coordinate":{"latitude":\#(latitude),"longitude":\#(longitude)},"timestamp":"\#(timestamp)","horizontalAccuracy":5}"#
        }
        return (#"{"locations":[\#(fixes.joined(separator: ","))]}"#, timestamps)
    }
}

// MARK: - Reading back

extension TrackingDurabilityTests {
    /// Every stored fix timestamp of `device`, oldest first, page after page.
    static func history(of device: String, _ client: TestClient) async throws -> [String] {
        var timestamps: [String] = []
        var from: String?
        repeat {
            let query = from.map { "&from=\($0)" } ?? ""
            let response = try await client.execute(.request(.get, "/v1/devices/\(device)/locations?limit=1000\(query)"))
            #expect(response.status == .ok, "\(String(buffer: response.body ?? ByteBuffer()))")
            let page = try response.decode(HistoryPage.self)
            timestamps += page.locations.map(\.timestamp)
            from = page.nextFrom
        } while from != nil
        return timestamps
    }

    /// Every event of the subscription from `after=0`, page after page.
    static func events(of subscriptionId: String, _ client: TestClient) async throws -> [WireEvent] {
        var events: [WireEvent] = []
        var after: Int64 = 0
        while true {
            let response = try await client.execute(.request(.get, "/v1/subscriptions/\(subscriptionId)/events?after=\(after)&limit=1000"))
            #expect(response.status == .ok, "\(String(buffer: response.body ?? ByteBuffer()))")
            let page = try response.decode(WireEventPage.self)
            guard !page.events.isEmpty else { break }
            #expect(page.nextAfter > after)
            events += page.events
            after = page.nextAfter
        }
        return events
    }
}
