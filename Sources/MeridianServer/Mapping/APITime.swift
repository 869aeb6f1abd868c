import Foundation

/// RFC 3339 text of a time, as every time of the API is written: UTC, whole milliseconds
/// (`2026-11-23T09:08:54.526Z`), the same text the generated encoder writes.
///
/// Stored times are whole milliseconds, but their `Date` lies a hair below or above; this rounds
/// to the nearest millisecond, where `Date.ISO8601FormatStyle` truncates and wrote
/// `…40.000Z` for `…40.001Z` about half the time.
func apiTimeText(_ date: Date) -> String {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    var (days, ms) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    if ms < 0 { (days, ms) = (days - 1, ms + 86_400_000) }
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):\(pad(ms / 1000 % 60, 2)).\(pad(ms % 1000, 3))Z"
}
