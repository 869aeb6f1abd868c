import Foundation
import Testing
import TestSupport

/// `meridian serve --cors-origin` as an operator types it: a value that is not an origin, or `*`
/// on a database with keys, stops the start with a message that says why.
@Suite(.watchdog, .sqliteFile) struct CORSOriginCommandTests {
    @Test func serveRefusesAnyOriginWithKeysAndValuesThatAreNotOrigins() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanUp() }
        let created = try await CommandLineTests.meridian(["keys", "create", "--tenant", "default", "--role", "admin", "--database", database.path])
        #expect(created.status == 0, "\(created.stderr)")
        let any = try await CommandLineTests.meridian(["serve", "--port", "0", "--database", database.path, "--cors-origin", "*"])
        #expect(any.status != 0 && any.stderr.contains("--cors-origin '*'") && any.stderr.contains("API keys"), "\(any.stderr)")
        let path = try await CommandLineTests.meridian(["serve", "--port", "0", "--database", database.path, "--cors-origin", "http://app.example/"])
        #expect(path.status != 0 && path.stderr.contains("is not an origin"), "\(path.stderr)")
    }
}
