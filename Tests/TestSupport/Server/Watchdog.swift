import Foundation
import Testing

/// Names a test that runs long: after ``quiet`` it prints the test's name to stderr every
/// ``interval`` until it ends, so a stalled run (the PostgreSQL pass fails after 15 minutes) says
/// which test is stuck. Every suite of the contract suite carries it (`@Suite(.watchdog)`).
public struct Watchdog: TestTrait, SuiteTrait, TestScoping {
    public static let quiet: Duration = .seconds(180)
    public static let interval: Duration = .seconds(30)

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard !test.isSuite else { return try await function() }
        let name = "\(test.id)"
        let watching = Task.detached {
            try? await Task.sleep(for: Self.quiet)
            var waited = Self.quiet
            while !Task.isCancelled {
                FileHandle.standardError.write(Data("still running after \(waited): \(name)\n".utf8))
                try? await Task.sleep(for: Self.interval)
                waited += Self.interval
            }
        }
        defer { watching.cancel() }
        try await function()
    }
}

extension Trait where Self == Watchdog {
    /// See ``Watchdog``.
    public static var watchdog: Watchdog { Watchdog() }
}

extension Trait where Self == ConditionTrait {
    /// For tests of a SQLite file itself (kill -9 or SIGTERM of a process on its file, restarts on
    /// it, the commands on one): they run in the SQLite pass only.
    public static var sqliteFile: Self {
        .enabled(if: TestEngine.contract == .sqlite, "a SQLite file: the SQLite pass of make unit")
    }

    /// For tests of several instances on one PostgreSQL: they run in the PostgreSQL pass only.
    public static var postgresPass: Self {
        .enabled(if: TestEngine.contract == .postgres, "the PostgreSQL pass of make unit")
    }
}
