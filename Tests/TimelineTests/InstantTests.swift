import Testing
import Timeline

@Suite struct InstantTests {
    @Test func parsesRFC3339ToTheMicrosecond() throws {
        // 2026-11-23T08:15:30Z is 1 795 421 730 s after the epoch (date -u -d … +%s).
        #expect(Instant(rfc3339: "2026-11-23T08:15:30Z")?.microseconds == 1_795_421_730_000_000)
        #expect(Instant(rfc3339: "2026-11-23T08:15:30.123456Z")?.microseconds == 1_795_421_730_123_456)
        #expect(Instant(rfc3339: "2026-11-23T08:15:30.1234569Z")?.microseconds == 1_795_421_730_123_456)
        #expect(Instant(rfc3339: "2026-11-23T09:15:30.5+01:00")?.microseconds == 1_795_421_730_500_000)
        #expect(Instant(rfc3339: "1970-01-01T00:00:00Z")?.microseconds == 0)
        #expect(Instant(rfc3339: "1969-12-31T23:59:59.999999Z")?.microseconds == -1)
        #expect(Instant(rfc3339: "2024-02-29T00:00:00Z") != nil)
        #expect(Instant(rfc3339: "0001-01-01T00:00:00Z")?.rfc3339 == "0001-01-01T00:00:00.000Z")
        #expect(Instant(rfc3339: "9999-12-31T23:59:59.999999Z")?.rfc3339 == "9999-12-31T23:59:59.999999Z")
    }

    @Test(arguments: ["", "2026-11-23", "2026-11-23T08:15:30", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
                      "2026-11-23T24:00:00Z", "2026-11-23T08:15:30.Z", "2026-11-23T08:15:30Zjunk", "yesterday",
                      "0000-01-01T00:30:00Z", "0000-12-31T23:30:00-01:00", "10000-01-01T00:00:00Z"])
    func refusesWhatIsNotADateTime(_ text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    @Test func writesUTCWithMillisecondsOrMicroseconds() {
        #expect(Instant(microseconds: 1_795_421_730_000_000).rfc3339 == "2026-11-23T08:15:30.000Z")
        #expect(Instant(microseconds: 1_795_421_730_123_456).rfc3339 == "2026-11-23T08:15:30.123456Z")
        #expect(Instant(microseconds: -1).rfc3339 == "1969-12-31T23:59:59.999999Z")
        for text in ["2000-02-29T12:34:56.789Z", "2099-12-31T23:59:59.000001Z"] {
            #expect(Instant(rfc3339: text)?.rfc3339 == text)
        }
    }

    /// A year 0001 with an offset east of UTC is year 0000 in UTC (and 9999 west of it, 10000):
    /// written at the widest offset, the text reads back as the same instant.
    @Test func instantsPastUTCsFourDigitYearsWriteWithAnOffsetAndReadBack() throws {
        let early = try #require(Instant(rfc3339: "0001-01-01T00:30:00+01:00"))
        #expect(early.rfc3339 == "0001-01-01T23:29:00.000+23:59")
        let late = try #require(Instant(rfc3339: "9999-12-31T23:30:00-01:00"))
        #expect(late.rfc3339 == "9999-12-31T00:31:00.000-23:59")
        let leap = try #require(Instant(rfc3339: "9999-12-31T23:59:60Z"))
        for instant in [early, late, leap] {
            #expect(Instant(rfc3339: instant.rfc3339) == instant)
        }
    }
}
