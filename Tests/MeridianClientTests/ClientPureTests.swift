import Foundation
import MeridianClient
import OpenAPIRuntime
import Testing

/// The client's own rules, without a server: waits between retries, fix timestamps, errors read
/// off a generated output.
@Suite struct ClientPureTests {
    @Test func retryAfterIsHonouredAndALongerOneGivesUp() {
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(100), maxDelay: .seconds(10))
        #expect(policy.delay(afterAttempt: 1, retryAfter: 2) == .seconds(2))
        #expect(policy.delay(afterAttempt: 1, retryAfter: 11) == nil)
        #expect(policy.delay(afterAttempt: 3, retryAfter: 1) == nil)
    }

    @Test func backoffDoublesUpToTheCeilingWithJitterBelowIt() throws {
        let policy = RetryPolicy(maxAttempts: 100, initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        for (attempt, ceiling) in [(1, Duration.milliseconds(100)), (2, .milliseconds(200)), (4, .milliseconds(800)), (5, .seconds(1)), (60, .seconds(1))] {
            let delays = try (0..<50).map { _ in try #require(policy.delay(afterAttempt: attempt, retryAfter: nil)) }
            #expect(delays.allSatisfy { $0 >= .zero && $0 <= ceiling }, "attempt \(attempt)")
            #expect(Set(delays).count > 1, "jittered")
        }
    }

    @Test(arguments: [
        (1_767_225_600.0, "2026-01-01T00:00:00.000000Z"),
        (1_767_225_600.123456, "2026-01-01T00:00:00.123456Z"),
        (1_767_225_659.9999996, "2026-01-01T00:01:00.000000Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500000Z"),
    ])
    func fixTimestampsAreUTCToTheMicrosecond(seconds: Double, text: String) {
        #expect(Components.Schemas.Fix.timestamp(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test(arguments: [
        ("2026-01-01T00:00:00.123456Z", 1_767_225_600.123456),
        ("2026-01-01T00:00:00Z", 1_767_225_600),
        ("2026-01-01T00:00:00.5Z", 1_767_225_600.5),
        ("2026-01-01T01:00:00.25+01:00", 1_767_225_600.25),
    ])
    func serverDatesAreReadToTheMicrosecond(text: String, seconds: Double) throws {
        let date = try RFC3339Dates().decode(text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test func notADateIsAnError() {
        for text in ["", "2026-01-01", "2026-01-01T00:00:00.Z", "yesterday"] {
            #expect(RFC3339Dates.date(from: text) == nil, "\(text)")
        }
    }

    @Test func anErrorIsReadOffAGeneratedOutput() {
        let problem = Components.Schemas.Problem(_type: "about:blank", title: "Too Many Requests", status: 429, detail: "slow down")
        let output = Operations.PostLocations.Output.tooManyRequests(.init(headers: .init(retryAfter: 3), body: .applicationProblemJson(problem)))
        let error = MeridianError(answer: output)
        #expect(error.status == 429)
        #expect(error.retryAfter == 3)
        #expect(error.problem == problem)
        #expect(error.answer == "tooManyRequests")
        let undocumented = MeridianError(answer: Operations.PostLocations.Output.undocumented(statusCode: 418, .init()))
        #expect(undocumented.status == 418)
        #expect(undocumented.problem == nil)
    }
}
