import Foundation

/// JSON numbers to `Double`, correctly rounded like Foundation's decoder.
///
/// 1. Clinger's fast path: at most 15 significant digits scaled by 10^k, |k| ≤ 22, is one exact
///    integer times or divided by one exact power of ten: one IEEE operation rounds it correctly.
/// 2. On x86_64, up to 19 digits and |k| ≤ 27 are exact in `Float80` (64-bit significand), so one
///    Float80 operation is within half a Float80 ulp of the true value. Rounding that to Double is
///    correct unless the 11 bits below Double's precision sit within one unit of the halfway
///    pattern 0x400; only then is the answer in doubt.
/// 3. Everything else (and the doubtful cases) goes to `strtod`.
public enum DecimalParser {
    /// Powers of ten that are exact in a Double, 10^0 … 10^22.
    private static let exactPowers: [Double] = (0...22).map { pow(10, Double($0)) }
    #if arch(x86_64)
    /// Powers of ten that are exact in a Float80, 10^0 … 10^27 (5^27 < 2^63).
    private static let exactWidePowers: [Float80] = (0...27).map { k in (0..<k).reduce(Float80(1)) { value, _ in value * 10 } }
    #endif

    /// The number starting at `start`, and how many bytes it took; nil when the bytes there are
    /// not a JSON number or the value is not finite.
    @inline(__always)
    public static func parse(_ bytes: UnsafeRawBufferPointer, from start: Int) -> (Double, Int)? {
        guard let scan = scan(bytes, from: start), scan.double.isFinite else { return nil }
        return (scan.double, scan.length)
    }

    /// What ``scan(_:from:)`` read: the nearest Double (±infinity above its range, ±0 below), the
    /// bytes taken, and whether the number has at most 15 significant digits and |exponent| ≤ 22
    /// (Clinger's fast path), so that the Double prints back as the same decimal.
    public struct Scan {
        public var double: Double
        public var length: Int
        public var shortest: Bool
    }

    /// The number starting at `start`; nil when the bytes there are not a JSON number.
    public static func scan(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Scan? {
        var index = start
        let count = bytes.count
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, exponent = 0
        var truncated = false  // a non-zero digit did not fit in the 19-digit mantissa
        let integerStart = index
        while index < count, let digit = digitValue(bytes[index]) {
            if digits < 19 { mantissa = mantissa * 10 + digit; if mantissa > 0 { digits += 1 } } else { exponent += 1; truncated = truncated || digit != 0 }
            index += 1
        }
        let integerDigits = index - integerStart
        guard integerDigits > 0, !(integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0")) else { return nil }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, let digit = digitValue(bytes[index]) {
                if digits < 19 { mantissa = mantissa * 10 + digit; if mantissa > 0 { digits += 1 }; exponent -= 1 } else { truncated = truncated || digit != 0 }
                index += 1
            }
            guard index > fractionStart else { return nil }
        }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-"); index += 1
            }
            let exponentStart = index
            var written = 0
            while index < count, let digit = digitValue(bytes[index]) {
                if written < 10_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += exponentNegative ? -written : written
        }
        let length = index - start
        if let magnitude = fastMagnitude(mantissa: mantissa, digits: digits, exponent: exponent, truncated: truncated) {
            return Scan(double: negative ? -magnitude : magnitude, length: length, shortest: !truncated && digits <= 15 && abs(exponent) <= 22)
        }
        // strtod reads the sign itself, and rounds beyond the range to ±infinity or ±0.
        return Scan(double: slowParse(bytes, start: start, length: length), length: length, shortest: false)
    }

    /// mantissa · 10^exponent correctly rounded, when a fast path can prove it; else nil.
    @inline(__always)
    private static func fastMagnitude(mantissa: UInt64, digits: Int, exponent: Int, truncated: Bool) -> Double? {
        guard !truncated else { return nil }
        if digits <= 15, abs(exponent) <= 22 {
            let scaled = Double(mantissa)
            return exponent < 0 ? scaled / exactPowers[-exponent] : scaled * exactPowers[exponent]
        }
        #if arch(x86_64)
        if abs(exponent) <= 27 {
            let scaled = Float80(mantissa)
            let wide = exponent < 0 ? scaled / exactWidePowers[-exponent] : scaled * exactWidePowers[exponent]
            let below = wide.significandBitPattern & 0x7FF
            // Normal doubles only (no subnormal double rounding), and clear of the halfway pattern.
            guard below < 0x3FF || below > 0x401, wide == 0 || (wide >= 0x1p-1021 && wide < 0x1p1023) else { return nil }
            return Double(wide)
        }
        #endif
        return nil
    }

    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt64? {
        byte &- UInt8(ascii: "0") < 10 ? UInt64(byte &- UInt8(ascii: "0")) : nil
    }

    /// strtod on a NUL-terminated copy (it includes the sign).
    private static func slowParse(_ bytes: UnsafeRawBufferPointer, start: Int, length: Int) -> Double {
        var text = [CChar](repeating: 0, count: length + 1)
        for offset in 0..<length { text[offset] = CChar(bitPattern: bytes[start + offset]) }
        return strtod(text, nil)
    }
}
