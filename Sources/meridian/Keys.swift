import Access
import ArgumentParser
import Foundation
import Storage
import Timeline

/// `meridian keys create|list|revoke`: API keys, kept in the database the server reads them from.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API keys (a revocation holds for the server's next request).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a key and print it once; only a salted HMAC of it is stored.")

        @Option(help: "The tenant the key reaches: 1–64 of A–Z a–z 0–9 . _ - (default: default).")
        var tenant = TenantID.default.description
        @Option(help: "reader (every read), writer (reader + annotation writes), feed (location ingest only) or admin (everything in its tenant).")
        var role: String
        @Option(help: "A label for people, e.g. ios-app.")
        var name: String?
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let tenant = try TenantID.option(tenant)
            guard let role = Role(rawValue: role) else { throw ValidationError("--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))") }
            let (token, key) = KeySecret.make(tenant: tenant, role: role, name: name, at: Date())
            let storage = try await database.open()
            try await storage.insert(key)
            await storage.close()
            print(token)
            print("key \(key.id): tenant \(tenant), role \(role.rawValue); this is the only time the secret is shown")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")

        @Option(help: "Only this tenant's keys.")
        var tenant: String?
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let only = try tenant.map(TenantID.option)
            let storage = try await database.open()
            let keys = try await storage.keys(tenant: only)
            await storage.close()
            print(["ID", "TENANT", "ROLE", "NAME", "CREATED", "REVOKED"].joined(separator: "\t"))
            for key in keys {
                let dates = [key.createdAt, key.revokedAt].map { $0.map { Instant(millisecondOf: $0).rfc3339 } ?? "-" }
                print([key.id, key.tenant.description, key.role.rawValue, key.name ?? "-", dates[0], dates[1]].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: the server refuses it from its next request on.")

        @Argument(help: "The key's id (as keys list shows it).")
        var id: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let storage = try await database.open()
            let revoked = try await storage.revokeKey(id: id, at: Date())
            await storage.close()
            guard revoked else { throw ValidationError("no key has id \(id)") }
            print("key \(id) revoked")
        }
    }
}

/// `--database`, shared by every command that opens the database.
struct DatabaseOption: ParsableArguments {
    @Option(name: .customLong("database"), help: "SQLite database file, or postgres://user@host:port/database (env MERIDIAN_DATABASE; default ./meridian.sqlite).")
    var option: String?

    /// `--database`, else `MERIDIAN_DATABASE`, else the default.
    var path: String {
        option ?? ProcessInfo.processInfo.environment["MERIDIAN_DATABASE"] ?? MeridianDatabase.defaultPath
    }

    /// The database it names, migrated.
    func open() async throws -> any StorageEngine {
        do {
            return try await DatabasePlace.open(path)
        } catch let error as DatabasePlace.OpenError {
            throw ValidationError(error.description)
        }
    }
}

extension TenantID {
    /// The tenant a `--tenant` option names, or a validation error stating the rule.
    static func option(_ name: String) throws -> TenantID {
        guard let tenant = TenantID(name) else { throw ValidationError("--tenant must be \(TenantID.rule), got \"\(name)\"") }
        return tenant
    }
}
