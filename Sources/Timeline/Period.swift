/// A period written for people: a whole number and a unit (`30d`, `12h`, `90m`, `3600s`, `2w`),
/// or ISO 8601's `PnW` / `PnDTnHnMnS` form of days and clock units (`P30D`, `PT12H`, `P1DT6H`).
/// Years and months are refused: their length depends on the calendar.
public enum Period {
    /// Seconds in each suffix unit.
    private static let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// The period's length in seconds; nil unless `text` is one of the two forms with a length > 0.
    public static func seconds(_ text: String) -> Int64? {
        let text = String(text.trimmingWhitespace)
        let total: Int64?
        if let first = text.first, first == "P" || first == "p" { total = iso8601(text.dropFirst().uppercased()) } else { total = suffixed(text) }
        guard let total, total > 0 else { return nil }
        return total
    }

    /// `<digits><unit>`.
    private static func suffixed(_ text: String) -> Int64? {
        guard let unit = text.last.flatMap({ units[Character($0.lowercased())] }) else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let count = Int64(digits) else { return nil }
        let (product, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? nil : product
    }

    /// ISO 8601 after the `P`: `nW`, or `[nD][T[nH][nM][nS]]` with at least one part.
    private static func iso8601(_ text: String) -> Int64? {
        var (total, digits, inTime, parts) = (Int64(0), "", false, 0)
        var timeParts = 0
        var allowed: [Character] = ["W", "D", "T"]
        for character in text {
            if character.isASCIIDigit { digits.append(character); continue }
            guard allowed.contains(character) else { return nil }
            if character == "T" {
                guard digits.isEmpty, !inTime else { return nil }
                (inTime, allowed) = (true, ["H", "M", "S"])
                continue
            }
            guard let count = Int64(digits) else { return nil }
            let unit: Int64 = switch character {
            case "W": 604_800
            case "D": 86_400
            case "H": 3_600
            case "M": 60
            default: 1
            }
            // Each unit once, largest first; a week stands alone.
            allowed = character == "W" ? [] : Array(allowed.drop { $0 != character }.dropFirst())
            let (product, overflow) = count.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            let (sum, over) = total.addingReportingOverflow(product)
            guard !over else { return nil }
            (total, digits, parts) = (sum, "", parts + 1)
            if inTime { timeParts += 1 }
        }
        // A `T` needs a clock part after it.
        return digits.isEmpty && parts > 0 && (!inTime || timeParts > 0) ? total : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
