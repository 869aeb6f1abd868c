import Foundation
import Tracking

/// RFC 3339 text of a time, as every time of the API is written: UTC, whole milliseconds
/// (`2026-11-23T09:08:54.526Z`), the same text the generated encoder writes.
///
/// Stored times are whole milliseconds, but their `Date` lies a hair below or above; this rounds
/// to the nearest millisecond, where `Date.ISO8601FormatStyle` truncates and wrote
/// `…40.000Z` for `…40.001Z` about half the time.
func apiTimeText(_ date: Date) -> String {
    FixTime(microseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()) * 1000).rfc3339
}
