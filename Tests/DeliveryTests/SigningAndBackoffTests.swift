import Delivery
import Foundation
import Testing
import Timeline

/// Standard Webhooks signing against the specification's published example, secrets, and the
/// retry schedule.
@Suite struct SigningAndBackoffTests {
    /// The example of the Standard Webhooks specification (and of svix's libraries' tests).
    @Test func theSignatureMatchesTheSpecificationsExample() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = WebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                              body: Array(#"{"test": 2432232314}"#.utf8), secret: secret)
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func aRotationSignsWithBothSecretsForADayThenWithTheNewOneOnly() throws {
        let old = WebhookSecret.generate(), new = WebhookSecret.generate()
        let rotated = SigningSecrets(current: old).rotated(to: new, at: Instant(microseconds: 0))
        #expect(rotated.signing(at: Instant(microseconds: 0)) == [new, old])
        #expect(rotated.signing(at: Instant(microseconds: SigningSecrets.rotationOverlap - 1)) == [new, old])
        #expect(rotated.signing(at: Instant(microseconds: SigningSecrets.rotationOverlap)) == [new])
        let header = WebhookSignature.header(id: "a", timestamp: 1, body: [UInt8](), secrets: [new, old])
        #expect(header.split(separator: " ").count == 2 && header.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
    }

    @Test func aSecondRotationWithinTheDayKeepsEveryRetiredSecretItsFullDay() {
        let (a, b, c) = (WebhookSecret.generate(), WebhookSecret.generate(), WebhookSecret.generate())
        let hour: Int64 = 3_600_000_000
        let twice = SigningSecrets(current: a).rotated(to: b, at: Instant(microseconds: 0)).rotated(to: c, at: Instant(microseconds: hour))
        #expect(twice.signing(at: Instant(microseconds: 2 * hour)) == [c, b, a])
        #expect(twice.signing(at: Instant(microseconds: SigningSecrets.rotationOverlap)) == [c, b], "a's day is up, b's is not")
        #expect(twice.overlapEnds(at: Instant(microseconds: 2 * hour)) == Instant(microseconds: hour + SigningSecrets.rotationOverlap))
        #expect(twice.signing(at: Instant(microseconds: hour + SigningSecrets.rotationOverlap)) == [c])
    }

    @Test func internationalisedHostsAreCheckedAndSentInPunycode() throws {
        #expect(try WebhookURL("http://ü.example.com/hook").host == "xn--tda.example.com")
        #expect(try WebhookURL("https://xn--tda.example.com/").host == "xn--tda.example.com")
    }

    @Test(arguments: ["whsec_", "whsec_c2hvcnQ=", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_!!!!MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                      "whsec_" + Data(repeating: 1, count: 65).base64EncodedString()])
    func secretsOutsideTheStandardAreRefused(text: String) {
        #expect(WebhookSecret(text) == nil)
    }

    @Test func generatedSecretsAreDistinct32ByteKeys() {
        let secrets = (0..<50).map { _ in WebhookSecret.generate() }
        #expect(Set(secrets.map(\.text)).count == 50 && secrets.allSatisfy { $0.key.count == 32 && WebhookSecret($0.text) == $0 })
        #expect(!"\(secrets[0])".contains(secrets[0].text.dropFirst(6)), "descriptions never show the secret")
    }

    @Test func schedulesParseWithUnitsAndRefuseGarbage() throws {
        #expect(BackoffSchedule(parsing: "1s,2s,4s")?.delays == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(BackoffSchedule(parsing: "250ms, 1.5s ,2m,1h")?.delays == [.milliseconds(250), .milliseconds(1_500), .seconds(120), .seconds(3_600)])
        #expect(BackoffSchedule(parsing: "")?.attempts == 1)
        for bad in ["1", "1s,,2s", "-1s", "fast", "1d", "nan s", "1e9h"] { #expect(BackoffSchedule(parsing: bad) == nil, "\(bad)") }
        #expect(BackoffSchedule.standard.description == "5s,30s,2m,10m,30m,1h,2h,4h,8h" && BackoffSchedule.standard.attempts == 10)
    }

    /// Full jitter: every wait lies between zero and the step's delay, never shorter than
    /// `Retry-After` (capped at a day), and there is none after the last attempt.
    @Test func delaysAreJitteredWithinTheStepAndRespectRetryAfter() {
        let schedule = BackoffSchedule(delays: [.seconds(5), .seconds(30)])
        var generator = SystemRandomNumberGenerator()
        var waits: [Duration] = []
        for _ in 0..<2_000 { waits.append(schedule.delay(afterAttempt: 1, retryAfter: nil, using: &generator)!) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(5) })
        #expect(waits.contains { $0 < .seconds(1) } && waits.contains { $0 > .seconds(4) }, "spread over the whole step")
        #expect(schedule.delay(afterAttempt: 2, retryAfter: .seconds(60), using: &generator)! >= .seconds(60))
        #expect(schedule.delay(afterAttempt: 1, retryAfter: .seconds(10_000_000), using: &generator)! == BackoffSchedule.maxRetryAfter)
        #expect(schedule.delay(afterAttempt: 3, retryAfter: nil, using: &generator) == nil)
    }
}
