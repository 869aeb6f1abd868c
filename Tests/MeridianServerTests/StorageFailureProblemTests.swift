import Foundation
import GRDB
import HTTPTypes
import MeridianHTTP
@testable import MeridianServer
import Storage
import Testing
import TestSupport

/// Failures of the database itself become the answers a client can act on: a full disk 507, the
/// database away 503, a commit of unknown outcome 503 that says how to retry; each with
/// `Retry-After`. The SQLite error is a real one: a database held to a few pages, filled.
@Suite struct StorageFailureProblemTests {
    @Test func aFullDatabaseIs507WithRetryAfter() async throws {
        let file = TemporaryDatabase()
        defer { file.cleanUp() }
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = 8") }
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        let full = try #require(await #expect(throws: DatabaseError.self) {
            try await queue.write { db in
                try db.execute(sql: "CREATE TABLE filler (bytes BLOB)")
                for _ in 0..<1_000 { try db.execute(sql: "INSERT INTO filler VALUES (randomblob(4096))") }
            }
        })
        #expect(full.resultCode == .SQLITE_FULL)
        let problem = try #require(ProblemMapping.problem(for: full))
        #expect(problem.status == 507 && problem.retryAfter != nil)
        #expect(problem.detail?.contains("nothing was stored") == true)
    }

    @Test func aDatabaseAwayIs503AndAnUnknownCommitSaysHowToRetry() throws {
        let away = try #require(ProblemMapping.problem(for: StorageError.unavailable))
        #expect(away.status == 503 && away.retryAfter == 1)
        let unknown = try #require(ProblemMapping.problem(for: StorageError.commitOutcomeUnknown))
        #expect(unknown.status == 503 && unknown.retryAfter == 1)
        #expect(unknown.detail?.contains("Idempotency-Key") == true)
        // A failure that will not pass by waiting says no time to retry after.
        let lost = try #require(ProblemMapping.problem(for: StorageError.corruptRow(table: "annotation", id: "x")) ?? ProblemDetails(status: .internalServerError, detail: nil))
        #expect(lost.retryAfter == nil)
    }
}
