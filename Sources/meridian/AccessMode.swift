import Access
import ArgumentParser
import MeridianServer
import Storage

/// Whether `serve` may start without keys, decided before it listens: open mode only on loopback
/// (or with `--insecure-open`) and only while no key was ever created; beyond loopback without a
/// key it refuses to start and says how to make one.
struct AccessMode: CustomStringConvertible {
    var openWhenNoKeys: Bool
    var keysExist: Bool

    static func decide(_ configuration: ServerConfiguration, insecureOpen: Bool) async throws -> AccessMode {
        let storage = try await DatabasePlace.open(configuration.databasePath)
        let keysExist = try await storage.keyDirectory().anyKeyExists()
        await storage.close()
        let loopback = isLoopback(configuration.host)
        if !loopback && !insecureOpen && !keysExist {
            throw ValidationError("""
                refusing to serve \(configuration.host) without API keys: anyone who reaches the port could read and write everything.
                Create a key first:  meridian keys create --tenant default --role admin --database \(DatabasePlace.displayName(configuration.databasePath))
                or listen on 127.0.0.1, or pass --insecure-open to serve the network without keys on purpose.
                """)
        }
        return AccessMode(openWhenNoKeys: loopback || insecureOpen, keysExist: keysExist)
    }

    /// Loopback names and addresses (127.0.0.0/8, ::1, localhost).
    /// `localhost`, `::1` or an IPv4 address in 127.0.0.0/8 written as four decimal numbers (a
    /// name such as `127.example.com` is not loopback).
    static func isLoopback(_ host: String) -> Bool {
        if ["localhost", "::1", "[::1]"].contains(host) { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && parts[0] == "127"
    }

    var description: String {
        if keysExist || !openWhenNoKeys { return "API keys required (Authorization: Bearer)" }
        return "open mode: no key needed until the first key is created (meridian keys create)"
    }
}
