import Foundation
import HTTPTypes
import MeridianHTTP
import Timeline

/// The `datetime` parameter (Part 1): an instant, or an interval `start/end` whose ends may be
/// open (`..` or nothing), in RFC 3339; a date alone stands for its whole day in UTC. Both ends are
/// included, to the microsecond.
struct OGCInterval: Hashable, Sendable {
    /// The first instant included; nil when open.
    var start: Instant?
    /// The last instant included; nil when open.
    var end: Instant?

    /// Whether `date` lies in the interval.
    func contains(_ date: Date) -> Bool {
        let instant = Instant(secondsSince1970: date.timeIntervalSince1970)
        return (start.map { $0 <= instant } ?? true) && (end.map { instant <= $0 } ?? true)
    }

    /// Reads a `datetime` value; 400 naming the parameter when it is not one.
    init(parsing text: String) throws(ProblemError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let day = Self.day(parts[0]) else {
                guard let instant = Instant(rfc3339: parts[0]) else { throw Self.unreadable(text) }
                (start, end) = (instant, instant)
                return
            }
            (start, end) = (day.first, day.last)
        case 2:
            start = try Self.end(parts[0], first: true, in: text)
            end = try Self.end(parts[1], first: false, in: text)
            if let start, let end, end < start {
                throw ProblemError(.badRequest, detail: "datetime ends before it starts",
                                   errors: [.init(parameter: "datetime", detail: "the interval's end must not come before its start")])
            }
        default:
            throw Self.unreadable(text)
        }
    }

    /// One end of an interval: nil when open (`..` or nothing).
    private static func end(_ text: Substring, first: Bool, in whole: String) throws(ProblemError) -> Instant? {
        if text.isEmpty || text == ".." { return nil }
        if let day = day(text) { return first ? day.first : day.last }
        guard let instant = Instant(rfc3339: text) else { throw unreadable(whole) }
        return instant
    }

    /// The first and last microsecond of a date `YYYY-MM-DD` (UTC), or nil when `text` is not a valid date.
    private static func day(_ text: Substring) -> (first: Instant, last: Instant)? {
        guard text.count == 10, let first = Instant(rfc3339: text + "T00:00:00Z") else { return nil }
        return (first, Instant(microseconds: first.microseconds + 86_400_000_000 - 1))
    }

    private static func unreadable(_ text: String) -> ProblemError {
        ProblemError(.badRequest, detail: "datetime is not an RFC 3339 instant or interval",
                     errors: [.init(parameter: "datetime", detail: "must be an instant (2026-11-29T10:00:00Z or 2026-11-29) or an interval start/end with .. for an open end, got \"\(text)\"")])
    }
}
