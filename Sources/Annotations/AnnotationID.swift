/// An annotation's server-assigned identity: a UUIDv7 (RFC 9562), time-ordered at millisecond
/// resolution, never reused. Ordering by value is ordering by issue.
public struct AnnotationID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bits 0–63: 48-bit Unix milliseconds, version 7, 12 bits of sequence.
    public let high: UInt64
    /// Bits 64–127: variant 0b10, 62 bits of sequence.
    public let low: UInt64

    /// An id from its two halves; callers outside tests use a generator.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The id in canonical text form, e.g. `018f3c3e-8a4b-7c1d-9e2f-0123456789ab`, or nil when
    /// the text is not a version-7 UUID.
    public init?(_ text: String) {
        let hex = text.utf8.filter { $0 != UInt8(ascii: "-") }
        guard text.utf8.count == 36, hex.count == 32,
              [8, 13, 18, 23].allSatisfy({ text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: $0)] == UInt8(ascii: "-") }),
              let high = UInt64(String(decoding: hex[0..<16], as: UTF8.self), radix: 16),
              let low = UInt64(String(decoding: hex[16..<32], as: UTF8.self), radix: 16),
              (high >> 12) & 0xF == 7, low >> 62 == 0b10
        else { return nil }
        self.init(high: high, low: low)
    }

    /// Milliseconds since 1970 when the id was issued.
    public var milliseconds: UInt64 { high >> 16 }

    public static func < (a: AnnotationID, b: AnnotationID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }

    /// Canonical lowercase 8-4-4-4-12 form.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for (word, shiftStart) in [(high, 60), (low, 60)] {
                var shift = shiftStart
                while shift >= 0 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = Self.hexDigits[Int((word >> UInt64(shift)) & 0xF)]
                    position += 1
                    shift -= 4
                }
            }
            return position
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
