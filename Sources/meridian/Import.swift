import Annotations
import ArgumentParser
import Foundation
import Storage
import Timeline
import WireJSON

/// `meridian import FILE`: loads a GeoJSON FeatureCollection of Points as annotations, with the
/// rules of `POST /v1/annotations/import` (``GeoJSONImport``), straight into the store.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a GeoJSON FeatureCollection of Points as annotations (upsert by externalId, one transaction)."
    )

    @Argument(help: "The GeoJSON file, e.g. Data/cities.geojson.")
    var file: String

    @OptionGroup var database: DatabaseOption

    @Option(help: "The tenant the annotations belong to (default: default, open mode's).")
    var tenant = "default"

    @Flag(help: "Import only into a database that has never held an annotation (demo data on first start).")
    var ifEmpty = false

    /// Says why on standard error and exits with status 1.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(1)
    }

    func run() async throws {
        let path = DatabasePlace.displayName(database.path)
        let start = ContinuousClock.now
        let tenant = try TenantID.option(tenant)
        // The process's exit closes the database (a PostgreSQL session ends; SQLite's WAL holds every commit).
        let store = try await database.open().annotations(tenant: tenant)
        // Skip a database that ever held an annotation, so seeding demo data never brings back what a user deleted.
        if ifEmpty, try await !store.changes(after: 0, limit: 1).isEmpty {
            print("\(path) already holds annotations; \(file) not imported")
            return
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        do {
            let progress = ImportProgress(file: data)
            let imported = try await GeoJSONImport.importBody(data, into: store, progress: progress.update)
            progress.finish()
            guard let results = imported else {
                let reason = data.withUnsafeBytes { JSONValueParser.parse($0) } == nil
                    ? "is not valid JSON"
                    : "is not a GeoJSON FeatureCollection (an object with \"type\": \"FeatureCollection\" and a \"features\" array of Feature objects)"
                Self.fail("\(file) \(reason); nothing was imported")
            }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            print("imported \(file) into \(path): \(GeoJSONImport.Summary(results)) in \(String(format: "%.2f", seconds)) s")
        } catch let invalid as GeoJSONImport.InvalidFeatures {
            Self.fail("\(file): \(invalid)")
        }
    }
}
