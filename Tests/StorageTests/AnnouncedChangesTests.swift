import AnnotationIndex
import Annotations
import Foundation
import MapGeometry
@testable import Storage
import Testing
import TestSupport
import Timeline
import WireJSON

/// A commit's `NOTIFY` carries its annotation changes, and another instance's follower applies
/// them instead of reading the feed: what it applies must be what the feed says.
@Suite struct AnnouncedChangesTests {
    static func properties(_ json: String) -> [String: JSONValue] {
        var text = json
        guard case .object(let members)? = text.withUTF8({ JSONValueParser.parse(UnsafeRawBufferPointer($0)) }) else { fatalError(json) }
        return members
    }

    static func entry(_ seed: Int, kind: String? = nil, identifier: String? = nil, numbers: [String: Double] = [:]) -> ThinningEntry {
        ThinningEntry(
            id: UUIDv7(high: 0x0190_0000_0000_7000 | UInt64(seed), low: 0x8000_0000_0000_0000 | UInt64(seed)),
            coordinate: Coordinate(latitude: 0.1 * Double(seed) - 45, longitude: -179.999_999_999_9 + Double(seed) / 3), kind: kind,
            clusteringIdentifier: identifier, displayPriority: seed % 7 - 3, version: seed % 5 + 1, numbers: numbers)
    }

    @Test func aPayloadReadsBackAsTheSameChangesBitForBit() throws {
        let changes: [AnnouncedChanges.Change] = [
            .upsert(Self.entry(1)),
            .upsert(Self.entry(2, kind: "caf\u{E9} \"quoted\"\n", identifier: "e\u{301}\\", numbers: [
                "population": 9_007_199_254_740_993, "ratio": 0.1, "tiny": 5e-324, "negative": -1.5e300, "zero": -0.0, "\u{1F30D}": 1,
            ])),
            .removal(Self.entry(3).id),
            .upsert(Self.entry(4, kind: "", identifier: "\u{0}")),
        ]
        let body = try #require(AnnouncedChanges.payload(changes))
        let read = try #require(AnnouncedChanges.changes(inPayload: Substring(body)))
        #expect(read == changes)
        guard case .upsert(let entry) = read[1] else { Issue.record("an upsert"); return }
        #expect(entry.numbers?["zero"]?.sign == .minus, "-0 keeps its sign")
        #expect(entry.point == Self.entry(2).point, "the map point is the coordinate's")
        #expect(AnnouncedChanges.changes(inPayload: "[[\"not an id\"]]") == nil)
        #expect(AnnouncedChanges.changes(inPayload: "{}") == nil)
    }

    @Test func aPayloadLongerThanNotifyTakesIsNotWritten() {
        let many = (0..<200).map { AnnouncedChanges.Change.upsert(Self.entry($0, kind: "shop")) }
        #expect(AnnouncedChanges.payload(many) == nil)
        #expect(AnnouncedChanges.payload(Array(many.prefix(10))) != nil)
    }

    @Test func onlyAContiguousRunIsAnswered() {
        let announced = AnnouncedChanges()
        let (a, b, c) = (Self.entry(1), Self.entry(2), Self.entry(3))
        #expect(announced.changes(after: 0, limit: 10) == nil, "nothing announced")
        announced.append([.upsert(a), .upsert(b)], through: 12)  // 11, 12
        #expect(announced.changes(after: 9, limit: 10) == nil, "10 was never announced")
        #expect(announced.changes(after: 12, limit: 10) == nil, "nothing after the run")
        var moved = a
        moved.coordinate = Coordinate(latitude: 1, longitude: 2)
        announced.append([.upsert(moved), .removal(b.id), .upsert(c)], through: 15)  // 13, 14, 15
        let all = announced.changes(after: 10, limit: 10)
        #expect(all?.through == 15)
        #expect(all?.upserts == [moved, c], "each annotation as the last change left it")
        #expect(all?.removals == [b.id])
        let two = announced.changes(after: 11, limit: 2)
        #expect(two?.through == 13 && two?.upserts == [b, moved] && two?.removals == [], "at most limit entries: 12 and 13")
        announced.append([.upsert(a)], through: 15)
        #expect(announced.changes(after: 14, limit: 10)?.upserts == [c], "an entry announced twice is kept once")
        announced.append([.upsert(b)], through: 20)  // a gap: 16–19 never announced
        #expect(announced.changes(after: 15, limit: 10) == nil, "the run starts again after a gap")
        #expect(announced.changes(after: 19, limit: 10)?.upserts == [b])
    }

    @Test func theRunKeepsItsNewestEntriesWithinItsCapacity() {
        let announced = AnnouncedChanges()
        let entry = Self.entry(1)
        let total = AnnouncedChanges.capacity + 100
        for sequence in 1...total { announced.append([.upsert(entry)], through: Int64(sequence)) }
        #expect(announced.changes(after: 0, limit: 10) == nil, "the oldest went")
        #expect(announced.changes(after: Int64(total - AnnouncedChanges.capacity / 2), limit: 10)?.through == Int64(total - AnnouncedChanges.capacity / 2 + 10))
    }
}

/// Two instances on one PostgreSQL: what one's commits announce is what the feed says on the other.
@Suite(.enabled(if: TestEngine.postgresURL != nil, "needs MERIDIAN_POSTGRES_URL: make test starts a throw-away PostgreSQL"), .serialized)
struct AnnouncedChangesPostgresTests {
    /// B's announced changes after `sequence` once they reach A's latest, compared with B reading the feed.
    static func expectAnnouncedIsTheFeed(after sequence: Int64, on b: any ServedAnnotationStore, through target: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var announced = b.announcedChanges(after: sequence, limit: 100_000)
        while announced?.through != target, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            announced = b.announcedChanges(after: sequence, limit: 100_000)
        }
        let read = try await b.thinningChanges(after: sequence, limit: 100_000)
        #expect(read.through == target)
        let heard = try #require(announced, "B heard every commit after \(sequence)")
        #expect(heard.through == read.through)
        #expect(Set(heard.upserts) == Set(read.upserts), "the same annotations, each as the feed's rows hold it")
        #expect(Set(heard.removals) == Set(read.removals))
    }

    @Test func anotherInstanceHearsWhatTheFeedSays() async throws {
        let place = try await TestEngine.postgres.freshPlace()
        let (engineA, engineB) = (try await DatabasePlace.open(place), try await DatabasePlace.open(place))
        defer { Task { await engineA.close(); await engineB.close() } }
        let a = try await engineA.annotations()
        let b = try await engineB.annotations()

        // Creates that wait together (one statement each group), with awkward text and numbers.
        let created = try await withThrowingTaskGroup(of: Annotation.self) { group in
            for index in 0..<24 {
                group.addTask {
                    try await a.create(AnnotationContent(
                        coordinate: Coordinate(latitude: Double(index) * 3.3 - 40, longitude: 179.9 - Double(index) / 7),
                        kind: index % 3 == 0 ? nil : "caf\u{E9} \"\(index)\"", clusteringIdentifier: index % 2 == 0 ? "e\u{301}\\\n" : nil,
                        displayPriority: index - 12,
                        properties: AnnouncedChangesTests.properties(#"{"population": 9007199254740993, "ratio": 0.1, "name": "x", "nested": {"n": 1}, "neg": -2.5e-300}"#)))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(created.count == 24)
        try await Self.expectAnnouncedIsTheFeed(after: 0, on: b, through: a.latestSequence)

        // Writes through the locked path: an external id, an update, an upsert, a delete.
        let start = a.latestSequence
        let named = try await a.create(AnnotationContent(externalId: "named", coordinate: Coordinate(latitude: 1, longitude: 2), title: "n"))
        _ = try await a.update(created[0].id, expectedVersion: nil) { content in
            var content = content
            content.coordinate = Coordinate(latitude: -10, longitude: 10)
            content.properties["population"] = .number(JSONNumber(3))
            return content
        }
        _ = try await a.upsert(externalId: "named", AnnotationContent(externalId: "named", coordinate: Coordinate(latitude: 3, longitude: 4)), expectedVersion: nil)
        try await a.delete(created[1].id, expectedVersion: nil)
        try await a.delete(named.id, expectedVersion: nil)
        try await Self.expectAnnouncedIsTheFeed(after: start, on: b, through: a.latestSequence)

        // An import announces only its counter: the feed is read for it, and the run starts again after.
        let beforeImport = a.latestSequence
        _ = try await a.importFeatures((0..<3).map { ImportedFeature(content: AnnotationContent(coordinate: Coordinate(latitude: Double($0), longitude: 0))) })
        let afterImport = a.latestSequence
        #expect(afterImport == beforeImport + 3)
        _ = try await a.create(AnnotationContent(coordinate: Coordinate(latitude: 5, longitude: 5)))
        try await Self.expectAnnouncedIsTheFeed(after: afterImport, on: b, through: a.latestSequence)
        #expect(b.announcedChanges(after: beforeImport, limit: 100) == nil, "the import's entries are read, not heard")
    }
}
