import ArgumentParser

/// `meridian`: the server and its tools.
@main
struct Meridian: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Meridian: geolocation and map-annotation server.",
        subcommands: [Serve.self, Import.self, Export.self, Keys.self, Backup.self, Migrate.self],
        defaultSubcommand: Serve.self
    )
}
