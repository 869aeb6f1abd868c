/// A JSON number with its exact value: any number RFC 8259's grammar allows, however many digits
/// and however large or small its exponent (up to ``maxExponentDigits`` digits), kept as its
/// decimal, with the nearest `Double` beside it for arithmetic and geometry.
///
/// Numbers a `Double` prints back exactly (`42`, `0.1`, `-1.5e+300`: ``JSONWriter``'s text of the
/// nearest Double is the same decimal) keep no text, so ordinary numbers cost a `Double` and read
/// and write as before. Any other (`9007199254740993`, `1e-400`, `1e400`, thirty digits) keeps its
/// normalised text (``exactText``): the same value in one spelling, so equal values have equal text
/// (`1E+2` is `100`, `1.50` is `1.5`).
///
/// Equality, hashing and order are by exact decimal value (`-0` equals `0`, as in `Double`).
public struct JSONNumber: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The nearest Double: ±infinity above its range, ±0 below it.
    public let double: Double
    /// The normalised text of the exact value when ``double`` does not print as it; nil when it does.
    public let exactText: String?

    /// Digits of an exponent at most (`1e999999999`): what the value keeps as an `Int` with room to spare.
    public static let maxExponentDigits = 9

    /// The number a finite Double prints as (``JSONWriter``'s rule).
    public init(_ double: Double) {
        self.double = double
        self.exactText = nil
    }

    /// The number `text` spells (the JSON grammar, nothing around it); nil for anything else.
    public init?(_ text: String) {
        var text = text
        let number = text.withUTF8 { bytes -> JSONNumber? in
            let raw = UnsafeRawBufferPointer(bytes)
            guard let (number, length) = JSONNumber.parse(raw, from: 0), length == raw.count else { return nil }
            return number
        }
        guard let number else { return nil }
        self = number
    }

    private init(double: Double, exactText: String?) {
        self.double = double
        self.exactText = exactText
    }

    /// The number starting at `start` and how many bytes it took; nil when the bytes there are not
    /// a JSON number or its exponent is longer than ``maxExponentDigits``.
    public static func parse(_ bytes: UnsafeRawBufferPointer, from start: Int) -> (JSONNumber, Int)? {
        guard let scan = DecimalParser.scan(bytes, from: start) else { return nil }
        // Clinger's fast path read it: at most 15 significant digits, which print back as they are.
        if scan.shortest { return (JSONNumber(scan.double), scan.length) }
        guard let decimal = Decimal(bytes, from: start, length: scan.length) else { return nil }
        if scan.double.isFinite, decimal == Decimal(written: scan.double) { return (JSONNumber(scan.double), scan.length) }
        return (JSONNumber(double: scan.double, exactText: decimal.text), scan.length)
    }

    /// The Double when the number is exactly what that Double prints as (`3`, `0.5`, `0.1`); nil when
    /// only ``exactText`` says the value. Integer rules (a priority, a limit) read numbers through this.
    public var plainDouble: Double? { exactText == nil ? double : nil }

    /// The text ``JSONWriter`` writes.
    public var description: String {
        if let exactText { return exactText }
        var writer = JSONWriter(capacity: 24)
        writer.number(double)
        return writer.text
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.double == rhs.double && lhs.exactText == rhs.exactText
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(double)
        hasher.combine(exactText)
    }

    public static func < (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        // Rounding to the nearest Double keeps order, so different Doubles decide it; only numbers
        // sharing one Double (and not both plain) need their decimals.
        if lhs.double != rhs.double { return lhs.double < rhs.double }
        if lhs.exactText == nil, rhs.exactText == nil { return false }
        return lhs.decimal < rhs.decimal
    }

    /// The exact value as a decimal.
    var decimal: Decimal {
        if let exactText {
            var text = exactText
            return text.withUTF8 { Decimal(UnsafeRawBufferPointer($0), from: 0, length: $0.count) }!
        }
        return Decimal(written: double)
    }
}

extension JSONNumber {
    /// An exact decimal in one form: sign, significant digits (no leading or trailing zeros; none
    /// for zero) and the power of ten of the last one (`value = digits · 10^exponent`).
    struct Decimal: Equatable, Comparable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int

        /// The decimal of JSON number text (already known to be valid, bar the exponent's length).
        init?(_ bytes: UnsafeRawBufferPointer, from start: Int, length: Int) {
            var index = start
            let end = start + length
            negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            digits = []
            var exponent = 0
            var fraction = false
            while index < end, bytes[index] != UInt8(ascii: "e"), bytes[index] != UInt8(ascii: "E") {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: ".") { fraction = true; continue }
                if fraction { exponent -= 1 }
                if digits.isEmpty, byte == UInt8(ascii: "0") { continue }
                digits.append(byte)
            }
            if index < end {
                index += 1  // e
                var exponentNegative = false
                if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    exponentNegative = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                while index < end, bytes[index] == UInt8(ascii: "0") { index += 1 }
                guard end - index <= JSONNumber.maxExponentDigits else { return nil }
                var written = 0
                while index < end { written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0")); index += 1 }
                exponent += exponentNegative ? -written : written
            }
            while digits.last == UInt8(ascii: "0") { digits.removeLast(); exponent += 1 }
            self.exponent = digits.isEmpty ? 0 : exponent
        }

        /// The decimal of what ``JSONWriter`` writes for a finite `double`.
        init(written double: Double) {
            var writer = JSONWriter(capacity: 24)
            writer.number(double)
            self = writer.bytes.withUnsafeBytes { Decimal($0, from: 0, length: $0.count) }!
        }

        /// The power of ten of the first digit (`1.5e+300` → 300).
        var leadingExponent: Int { exponent + digits.count - 1 }

        /// Plain notation for integers with at most 20 trailing zeros and for fractions from
        /// 10^-7 on (`123456789012345678901234567890`, `0.000000123`), else scientific (`1e-400`, `1.5e+300`).
        var text: String {
            var bytes: [UInt8] = negative ? [UInt8(ascii: "-")] : []
            if digits.isEmpty {
                bytes.append(UInt8(ascii: "0"))
            } else if exponent >= 0, exponent <= 20 {
                bytes += digits
                bytes += repeatElement(UInt8(ascii: "0"), count: exponent)
            } else if exponent < 0, leadingExponent >= -7 {
                if leadingExponent >= 0 {
                    bytes += digits[..<(leadingExponent + 1)]
                    bytes.append(UInt8(ascii: "."))
                    bytes += digits[(leadingExponent + 1)...]
                } else {
                    bytes += [UInt8(ascii: "0"), UInt8(ascii: ".")]
                    bytes += repeatElement(UInt8(ascii: "0"), count: -leadingExponent - 1)
                    bytes += digits
                }
            } else {
                bytes.append(digits[0])
                if digits.count > 1 { bytes.append(UInt8(ascii: ".")); bytes += digits[1...] }
                bytes += (leadingExponent < 0 ? "e-" : "e+").utf8
                bytes += String(abs(leadingExponent)).utf8
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        static func == (lhs: Decimal, rhs: Decimal) -> Bool {
            // Zero has one value whatever its sign.
            lhs.digits == rhs.digits && lhs.exponent == rhs.exponent && (lhs.negative == rhs.negative || lhs.digits.isEmpty)
        }

        static func < (lhs: Decimal, rhs: Decimal) -> Bool {
            let (lhsSign, rhsSign) = (lhs.sign, rhs.sign)
            if lhsSign != rhsSign { return lhsSign < rhsSign }
            if lhsSign == 0 { return false }
            return lhsSign > 0 ? lhs.magnitudeBelow(rhs) : rhs.magnitudeBelow(lhs)
        }

        /// -1, 0 or 1.
        private var sign: Int { digits.isEmpty ? 0 : negative ? -1 : 1 }

        /// Whether |self| < |other|, both non-zero.
        private func magnitudeBelow(_ other: Decimal) -> Bool {
            if leadingExponent != other.leadingExponent { return leadingExponent < other.leadingExponent }
            for (mine, theirs) in zip(digits, other.digits) where mine != theirs { return mine < theirs }
            return digits.count < other.digits.count
        }
    }
}
