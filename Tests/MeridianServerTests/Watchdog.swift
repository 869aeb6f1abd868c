import Foundation
import Testing

/// Names a test that runs long: after ``quiet`` it prints the test's name to stderr every
/// ``interval`` until it ends, so a stalled run (the PostgreSQL pass fails after 15 minutes) says
/// which test is stuck. Every suite of the contract suite carries it (`@Suite(.watchdog)`).
struct Watchdog: TestTrait, SuiteTrait, TestScoping {
    static let quiet: Duration = .seconds(180)
    static let interval: Duration = .seconds(30)

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
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
    static var watchdog: Watchdog { Watchdog() }
}
