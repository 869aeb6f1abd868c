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

    static func decide(_ configuration: ServerConfiguration, insecureOpen: Bool) throws -> AccessMode {
        let keysExist = try SQLiteKeyStore(database: MeridianDatabase.open(path: configuration.databasePath)).anyKeyExists()
        let loopback = isLoopback(configuration.host)
        if !loopback && !insecureOpen && !keysExist {
            throw ValidationError("""
                refusing to serve \(configuration.host) without API keys: anyone who reaches the port could read and write everything.
                Create a key first:  meridian keys create --tenant default --role admin --database \(configuration.databasePath)
                or listen on 127.0.0.1, or pass --insecure-open to serve the network without keys on purpose.
                """)
        }
        return AccessMode(openWhenNoKeys: loopback || insecureOpen, keysExist: keysExist)
    }

    /// Loopback names and addresses (127.0.0.0/8, ::1, localhost).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    var description: String {
        if keysExist || !openWhenNoKeys { return "API keys required (Authorization: Bearer)" }
        return "open mode: no key needed until the first key is created (meridian keys create)"
    }
}
