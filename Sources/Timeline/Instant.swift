public import Foundation

/// An instant in microseconds since 1970-01-01T00:00:00Z: the resolution at which two fixes of
/// a device are the same fix, and the one RFC 3339 text of every time the API writes.
///
/// Parsed from and written as RFC 3339 without Foundation's formatters, which keep only milliseconds
/// (and `Date.ISO8601FormatStyle` truncates: it wrote `…40.000Z` for `…40.001Z` about half the time).
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    public var microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// The instant `seconds` after the Unix epoch, rounded to the microsecond.
    public init(secondsSince1970 seconds: Double) {
        microseconds = Int64((seconds * 1_000_000).rounded())
    }

    /// `date` at the millisecond: stored times are whole milliseconds, but their `Date` lies a
    /// hair below or above, so this rounds to the nearest one.
    public init(millisecondOf date: Date) {
        microseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) * 1000
    }

    /// Seconds since the Unix epoch.
    public var secondsSince1970: Double { Double(microseconds) / 1_000_000 }

    /// This instant moved by `seconds`.
    public func adding(seconds: Double) -> Instant {
        Instant(microseconds: microseconds + Int64((seconds * 1_000_000).rounded()))
    }

    /// Seconds from `other` to this instant.
    public func seconds(since other: Instant) -> Double {
        Double(microseconds - other.microseconds) / 1_000_000
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.microseconds < rhs.microseconds }

    public var description: String { rfc3339 }
}

// MARK: - RFC 3339

extension Instant {
    /// Parses an RFC 3339 date-time of a year 0001…9999 (`2026-11-23T08:15:30.123456Z`,
    /// `…+01:00`); digits past the microsecond are dropped. Nil for anything else, including
    /// impossible dates. Exactly the strings the contract's `Timestamp` pattern matches.
    public init?(rfc3339 text: some StringProtocol) {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
              let day = reader.number(2), reader.take("T") || reader.take("t") || reader.take(" "),
              let hour = reader.number(2), reader.take(":"), let minute = reader.number(2), reader.take(":"),
              let second = reader.number(2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61  // 60: a leap second, read as the next second
        else { return nil }
        var fraction: Int64 = 0
        if reader.take(".") {
            var digits = 0
            while let digit = reader.digit() {
                if digits < 6 { fraction = fraction * 10 + Int64(digit) }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { fraction *= 10 }
        }
        var offsetMinutes = 0
        if reader.take("Z") || reader.take("z") {
        } else if let sign = reader.sign(), let offsetHour = reader.number(2), reader.take(":"), let offsetMinute = reader.number(2),
                  offsetHour < 24, offsetMinute < 60 {
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let days = Self.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        microseconds = seconds * 1_000_000 + fraction
    }

    /// 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z: what UTC can write with a four-digit year
    /// (microseconds since the epoch); a time read from a number outside it is no time a client can send back.
    public static let utcWritable: ClosedRange<Int64> =
        Int64(daysSinceEpoch(year: 1, month: 1, day: 1)) * 86_400_000_000...(Int64(daysSinceEpoch(year: 10_000, month: 1, day: 1)) * 86_400_000_000 - 1)
    /// The widest offset RFC 3339 writes, in minutes.
    private static let widestOffset: Int64 = 23 * 60 + 59

    /// RFC 3339 in UTC: milliseconds when the instant has none finer, else microseconds. The few
    /// instants a read can give outside UTC's years 0001…9999 (`0001-01-01T00:00:00+01:00`) are
    /// written at the widest offset that brings them back inside, so every answer reads again.
    public var rfc3339: String {
        let offset: Int64 = if microseconds < Self.utcWritable.lowerBound { Self.widestOffset }
            else if microseconds > Self.utcWritable.upperBound { -Self.widestOffset } else { 0 }
        let local = microseconds + offset * 60_000_000
        let (seconds, micros) = local.quotientAndRemainder(dividingBy: 1_000_000)
        let (wholeSeconds, fraction) = micros < 0 ? (seconds - 1, micros + 1_000_000) : (seconds, micros)
        let (days, secondOfDay) = wholeSeconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, time) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = Self.civil(daysSinceEpoch: day)
        // Bytes, not string interpolation: lists of thousands of annotations write two each.
        var text: [UInt8] = []
        text.reserveCapacity(32)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            guard (0..<divisor * 10).contains(value) else {
                // Outside its width (a year past 9999 from a database written elsewhere): as before, zero-padded decimal.
                let decimal = String(value)
                text += Array(repeating: UInt8(ascii: "0"), count: max(0, width - decimal.count)) + Array(decimal.utf8)
                return
            }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); text.append(UInt8(ascii: "-")); digits(month, 2); text.append(UInt8(ascii: "-")); digits(dayOfMonth, 2)
        text.append(UInt8(ascii: "T")); digits(time / 3600, 2); text.append(UInt8(ascii: ":")); digits(time / 60 % 60, 2)
        text.append(UInt8(ascii: ":")); digits(time % 60, 2); text.append(UInt8(ascii: "."))
        if fraction % 1000 == 0 { digits(fraction / 1000, 3) } else { digits(fraction, 6) }
        if offset == 0 {
            text.append(UInt8(ascii: "Z"))
        } else {
            text.append(UInt8(ascii: offset > 0 ? "+" : "-")); digits(abs(offset) / 60, 2); text.append(UInt8(ascii: ":")); digits(abs(offset) % 60, 2)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
    private static func civil(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads ASCII digits and punctuation off the front of a date-time.
private struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func digit() -> Int? {
        guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 48)
    }

    /// Exactly `count` digits as a number.
    mutating func number(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }
}
