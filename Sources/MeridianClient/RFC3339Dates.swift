public import Foundation
public import OpenAPIRuntime

/// Dates as the server writes and reads them: RFC 3339 in UTC with six fractional digits
/// (`2026-11-23T08:15:30.123456Z`). The runtime's default transcoder reads no fraction at all, so
/// every `createdAt` of an annotation would fail to decode; this one reads any number of digits
/// (or none) and any offset.
public struct RFC3339Dates: DateTranscoder {
    public init() {}

    /// `date` in UTC to the microsecond: the same date always gives the same text.
    public func encode(_ date: Date) throws -> String { Self.string(from: date) }

    public func decode(_ text: String) throws -> Date {
        guard let date = Self.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 date-time: \(text)"))
        }
        return date
    }

    /// See ``encode(_:)``.
    public static func string(from date: Date) -> String {
        var seconds = date.timeIntervalSince1970.rounded(.down)
        var microseconds = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded())
        if microseconds == 1_000_000 {
            seconds += 1
            microseconds = 0
        }
        let whole = Date(timeIntervalSince1970: seconds).formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        let fraction = String(microseconds)
        return "\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)Z"
    }

    /// The instant `text` names, its fraction kept to the last digit a `Date` holds; nil when it is
    /// not an RFC 3339 date-time.
    public static func date(from text: String) -> Date? {
        var whole = text
        var fraction = 0.0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
            whole = String(text[..<dot]) + text[dot...].dropFirst(digits.count + 1)
        }
        guard let date = try? Date(whole, strategy: Date.ISO8601FormatStyle()) else { return nil }
        return date.addingTimeInterval(fraction)
    }
}
