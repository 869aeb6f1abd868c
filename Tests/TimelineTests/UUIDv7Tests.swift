import Timeline
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct UUIDv7Tests {
    @Test func textFormRoundTripsAndIsVersion7() throws {
        let id = UUIDv7Generator(now: { Date(timeIntervalSince1970: 1_700_000_000.123) }).next()
        let text = id.description
        #expect(text.count == 36)
        #expect(Array(text)[14] == "7")                       // version nibble
        #expect("89ab".contains(Array(text)[19]))             // RFC 9562 variant
        #expect(UUIDv7(text) == id)
        // Foundation's UUID reads the same 128 bits from the text and prints it the same way.
        let uuid = try #require(UUID(uuidString: text))
        #expect(uuid.uuidString.lowercased() == text)
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        #expect(bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == id.high)
        #expect(bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == id.low)
        #expect(id.milliseconds == 1_700_000_000_123)
        #expect(UUIDv7("not-a-uuid") == nil)
        #expect(UUIDv7("123e4567-e89b-42d3-a456-426614174000") == nil)  // version 4
    }

    @Test func idsGrowStrictlyWithinAMillisecondAndWhenTheClockGoesBack() {
        let times = Mutex<[Double]>([5.000, 5.000, 5.000, 4.000, 4.000, 6.000])
        let generator = UUIDv7Generator(now: {
            Date(timeIntervalSince1970: times.withLock { $0.isEmpty ? 6 : $0.removeFirst() })
        })
        let ids = (0..<6).map { _ in generator.next() }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(ids[3].milliseconds == 5000)  // the clock went back; the id did not
    }

    @Test func aRestartNeverIssuesAnIdAtOrBelowTheLastOne() {
        let before = UUIDv7Generator(now: { Date(timeIntervalSince1970: 2_000_000_000) })
        let last = (0..<100).map { _ in before.next() }.max()!
        // The restarted process's clock is an hour behind.
        let after = UUIDv7Generator(after: last, now: { Date(timeIntervalSince1970: 1_999_996_400) })
        #expect((0..<100).map { _ in after.next() }.allSatisfy { $0 > last })
    }
}

/// Any UUID's text read by RFC 9562's form (8-4-4-4-12 hex digits, either case), its value as
/// the standard library's hex parse and Foundation read it: every character at every place.
/// (Foundation on Linux alone is no judge of the form: it reads a space, or a dash, where a
/// digit goes.)
@Suite struct UUIDTextTests {
    @Test func anyTextReadsByTheRFCsForm() throws {
        var random = SeededGenerator(seed: 9562)
        let alphabet = Array("0123456789abcdefABCDEF-gG /:@`".utf8)
        for _ in 0..<20_000 {
            var bytes = Array(String(format: "%016llX%016llX", UInt64.random(in: 0...UInt64.max, using: &random), UInt64.random(in: 0...UInt64.max, using: &random)).utf8)
            for dash in [8, 13, 18, 23] { bytes.insert(UInt8(ascii: "-"), at: dash) }
            if Bool.random(using: &random) { bytes = Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8) }
            // One or two characters changed, anywhere (a dash among them, or a digit for one).
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                bytes[Int.random(in: 0..<36, using: &random)] = alphabet.randomElement(using: &random)!
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let dashes: Set = [8, 13, 18, 23]
            let wellFormed = bytes.count == 36 && bytes.indices.allSatisfy { p in
                dashes.contains(p) ? bytes[p] == UInt8(ascii: "-") : Character(UnicodeScalar(bytes[p])).isHexDigit
            }
            let ours = UUIDv7(anyUUID: text)
            #expect((ours != nil) == wellFormed, "\(text)")
            guard let ours, wellFormed else { continue }
            let digits = text.filter { $0 != "-" }
            #expect(UInt64(digits.prefix(16), radix: 16) == ours.high && UInt64(digits.suffix(16), radix: 16) == ours.low, "\(text)")
            let foundation = try #require(UUID(uuidString: text))
            let words = withUnsafeBytes(of: foundation.uuid) { Array($0) }
            #expect(words[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == ours.high, "\(text)")
        }
    }
}

