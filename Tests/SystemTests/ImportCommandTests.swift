import Foundation
import Testing
import TestSupport

/// `meridian import` through the real binary: the rules of the HTTP import, its answers as plain
/// text (a summary on stdout, every problem on stderr with exit status 1).
@Suite(.watchdog, .sqliteFile) struct ImportCommandTests {
    typealias Run = ProcessRun.Result

    static func run(_ body: String, _ extra: [String] = [], database: TemporaryDatabase) async throws -> Run {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID()).geojson")
        try Data(body.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return await ProcessRun.run(try ServerProcess.executable(), ["import", file.path, "--database", database.path] + extra)
    }

    static let valid = #"""
    {"type":"FeatureCollection","features":[
      {"type":"Feature","geometry":{"type":"Point","coordinates":[-0.1276,51.5072]},"properties":{"externalId":"london","title":"London"}},
      {"type":"Feature","geometry":{"type":"Point","coordinates":[139.7454,35.6586]},"properties":{"title":"Tokyo Tower"}}]}
    """#

    @Test func importsAndReportsASummary() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let first = try await Self.run(Self.valid, database: database)
        #expect(first.status == 0 && first.stderr.isEmpty)
        #expect(first.stdout.contains("2 created, 0 updated, 0 unchanged"), "\(first.stdout)")
        let again = try await Self.run(Self.valid, ["--if-empty"], database: database)
        #expect(again.status == 0 && again.stdout.contains("already holds annotations"), "\(again.stdout)")
    }

    @Test func everyBadFeatureIsListedAsTextAndNothingIsStored() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let run = try await Self.run(#"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[10,95]}}]}
            """#, database: database)
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(run.stderr.contains("2 features are invalid; nothing was imported"), "\(run.stderr)")
        #expect(run.stderr.contains("/features/0/geometry/type must be \"Point\""), "\(run.stderr)")
        #expect(run.stderr.contains("/features/1/geometry/coordinates/1 must be between -90 and 90"), "\(run.stderr)")
        #expect(!run.stderr.contains("{"), "plain text, not problem+json")
        // Nothing was stored: the same database still counts as empty.
        #expect(try await Self.run(Self.valid, ["--if-empty"], database: database).stdout.contains("2 created"))
    }

    @Test(arguments: [("not json at all", "is not valid JSON"), (#"{"type":"Topology"}"#, "is not a GeoJSON FeatureCollection")])
    func aFileThatIsNoImportSaysWhy(_ body: String, _ reason: String) async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let run = try await Self.run(body, database: database)
        #expect(run.status == 1 && run.stderr.contains(reason), "\(run.stderr)")
    }
}
