import ArgumentParser
import Foundation
import MeridianServer

/// `meridian import FILE`: loads a GeoJSON FeatureCollection of Points as annotations.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a GeoJSON FeatureCollection of Points as annotations (upsert by externalId, one transaction)."
    )

    @Argument(help: "The GeoJSON file, e.g. Data/cities.geojson.")
    var file: String

    @Option(help: "SQLite database file (env MERIDIAN_DATABASE; default ./meridian.sqlite).")
    var database: String?

    @Flag(help: "Import only into a database that has never held an annotation (demo data on first start).")
    var ifEmpty = false

    func run() async throws {
        let path = database ?? ProcessInfo.processInfo.environment["MERIDIAN_DATABASE"] ?? ServerConfiguration().databasePath
        let start = ContinuousClock.now
        do {
            guard let summary = try await importGeoJSON(file: file, databasePath: path, onlyIfEmpty: ifEmpty) else {
                print("\(path) already holds annotations; \(file) not imported")
                return
            }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            print("imported \(file) into \(path): \(summary) in \(String(format: "%.2f", seconds)) s")
        } catch let failure as ImportFailure {
            print("\(file): \(failure)")
            throw ExitCode.failure
        }
    }
}
