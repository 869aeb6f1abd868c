import ArgumentParser
import Foundation
import Annotations
import MeridianServer
import Storage
import Timeline

/// `meridian backup FILE`: a consistent copy of a database, taken while a server uses it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database to FILE with SQLite's online backup (consistent while a server runs). Restore: stop the server, replace the database file with FILE (and remove its -wal and -shm files), start it."
    )

    @Argument(help: "Where the copy goes; must not exist yet.")
    var file: String
    @OptionGroup var database: DatabaseOption

    func run() throws {
        guard !FileManager.default.fileExists(atPath: file) else { throw ValidationError("\(file) exists; backup writes a new file only") }
        let path = database.path
        guard !PostgresLocation.isPostgres(path) else { throw ValidationError("backup copies a SQLite file; back a PostgreSQL database up with pg_dump") }
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no database at \(path)") }
        let start = ContinuousClock.now
        try MeridianDatabase.open(path: path).backup(to: file)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("backed up \(path) to \(file): \(bytes) bytes in \(String(format: "%.2f", (ContinuousClock.now - start) / .seconds(1))) s")
    }
}

/// `meridian export`: a tenant's annotations as GeoJSON, as `GET /v1/annotations/export` answers.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a tenant's live annotations as a GeoJSON FeatureCollection (to FILE, or standard output).")

    @Argument(help: "Where the GeoJSON goes; - or nothing for standard output.")
    var file: String?
    @Option(help: "Whose annotations (default: default).")
    var tenant = "default"
    @OptionGroup var database: DatabaseOption

    func run() async throws {
        let tenant = try TenantID.option(tenant)
        let storage = try await database.open()
        let store = try await storage.annotations(tenant: tenant)
        let data = try AnnotationExport.featureCollection(try await store.annotations(matching: AnnotationQuery()).annotations)
        if let file, file != "-" {
            try data.write(to: URL(fileURLWithPath: file))
        } else {
            FileHandle.standardOutput.write(data)
        }
        await storage.close()
    }
}

/// `meridian migrate`: brings a database's schema up to this version (what `serve` does at start).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the migrations the database lacks (serve does too at start; several instances may run it at once).")

    @OptionGroup var database: DatabaseOption

    func run() async throws {
        let storage = try await database.open()
        let steps = try await storage.appliedMigrations()
        await storage.close()
        print("\(DatabasePlace.displayName(database.path)) is at \(steps.last ?? "no migration") (\(steps.count) steps applied)")
    }
}
