/// A server-assigned identity (annotations, subscriptions, events): a UUIDv7 (RFC 9562),
/// time-ordered at millisecond resolution, never reused. Ordering by value is ordering by issue.
public struct UUIDv7: Hashable, Comparable, Sendable, CustomStringConvertible {
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
        var text = text
        guard let id = text.withUTF8({ Self(utf8: $0) }) else { return nil }
        self = id
    }

    /// The id in canonical text form given as UTF-8 bytes (as SQLite hands them out), or nil.
    public init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        self.init(utf8: text, anyVersion: false)
    }

    /// Any well-formed UUID (8-4-4-4-12 hex digits), whatever its version: a position in id order,
    /// and an id no annotation ever had when it is not a version-7 UUID.
    public init?(anyUUID text: String) {
        var text = text
        guard let id = text.withUTF8({ Self(utf8: $0, anyVersion: true) }) else { return nil }
        self = id
    }

    private init?(utf8 text: UnsafeBufferPointer<UInt8>, anyVersion: Bool) {
        guard text.count == 36 else { return nil }
        let dash = UInt8(ascii: "-")
        guard text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash else { return nil }
        // A digit's value from a table (0xFF: not a hex digit), OR-ed together to find any bad one:
        // a million rows read at start-up parse their ids here.
        var words: (UInt64, UInt64) = (0, 0)
        var seen: UInt8 = 0
        Self.hexValues.withUnsafeBufferPointer { values in
            func add(_ positions: Range<Int>, to word: inout UInt64) {
                for p in positions {
                    let value = values[Int(text[p])]
                    seen |= value
                    word = word << 4 | UInt64(value & 0xF)
                }
            }
            add(0..<8, to: &words.0); add(9..<13, to: &words.0); add(14..<18, to: &words.0)
            add(19..<23, to: &words.1); add(24..<36, to: &words.1)
        }
        guard seen & 0xF0 == 0 else { return nil }
        guard anyVersion || ((words.0 >> 12) & 0xF == 7 && words.1 >> 62 == 0b10) else { return nil }
        self.init(high: words.0, low: words.1)
    }

    /// Each byte's value as a hex digit (either case), 0xFF when it is none.
    private static let hexValues: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xFF
        }
    }

    /// Milliseconds since 1970 when the id was issued.
    public var milliseconds: UInt64 { high >> 16 }

    public static func < (a: UUIDv7, b: UUIDv7) -> Bool {
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
