import MapGeometry
import Timeline
import WireJSON

extension Filter {
    /// Whether `feature` matches. Comparisons with a null (missing) property or between values of
    /// different types are unknown, and unknown combines as in SQL (Kleene logic); an unknown
    /// result does not match.
    public func matches(_ feature: some CQL2Feature) -> Bool {
        evaluate(feature) == true
    }

    /// True, false, or nil for unknown.
    func evaluate(_ feature: some CQL2Feature) -> Bool? {
        switch self {
        case .literal(let value):
            return value
        case .and(let filters):
            var result: Bool? = true
            for filter in filters {
                switch filter.evaluate(feature) {
                case false?: return false
                case nil: result = nil
                case true?: continue
                }
            }
            return result
        case .or(let filters):
            var result: Bool? = false
            for filter in filters {
                switch filter.evaluate(feature) {
                case true?: return true
                case nil: result = nil
                case false?: continue
                }
            }
            return result
        case .not(let filter):
            return filter.evaluate(feature).map(!)
        case .comparison(let op, let left, let right):
            guard let order = Self.compare(left.value(in: feature), right.value(in: feature)) else { return nil }
            switch op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        case .like(let subject, let operand):
            guard case .string(let text)? = subject.value(in: feature) else { return nil }
            return operand.pattern.matches(text)
        case .in(let subject, let list):
            let value = subject.value(in: feature)
            var result: Bool? = false
            for item in list {
                switch Self.compare(value, item.value(in: feature)) {
                case 0?: return true
                case nil: result = nil
                default: continue
                }
            }
            return result
        case .between(let subject, let low, let high):
            let value = subject.value(in: feature)
            guard let above = Self.compare(value, low.value(in: feature)), let below = Self.compare(value, high.value(in: feature)) else { return nil }
            return above >= 0 && below <= 0
        case .isNull(let subject):
            return subject.value(in: feature) == nil
        case .spatial(let predicate, let left, let right):
            return Self.holds(predicate, left, right, for: feature)
        case .temporal(let predicate, let left, let right):
            guard let a = Self.period(left.value(in: feature)), let b = Self.period(right.value(in: feature)) else { return nil }
            return predicate.holds(a, b)
        case .array(let predicate, let left, let right):
            guard case .array(let a)? = left.value(in: feature), case .array(let b)? = right.value(in: feature) else { return nil }
            return predicate.holds(a, b)
        }
    }

    /// -1, 0, 1 for two values of one type (numbers, strings by code point, booleans false <
    /// true, instants); nil otherwise. A string compared with a `DATE` or a `TIMESTAMP` is read as
    /// one (RFC 3339 `full-date` or `date-time`): free properties hold dates and times as strings.
    static func compare(_ a: Value?, _ b: Value?) -> Int? {
        switch (a, b) {
        case (.number(let x)?, .number(let y)?):
            return x < y ? -1 : x > y ? 1 : 0
        case (.string(let x)?, .string(let y)?):
            // UTF-8 orders as code points do; equal means the same code points (not Swift's canonical equivalence).
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        case (.boolean(let x)?, .boolean(let y)?):
            return x == y ? 0 : (x ? 1 : -1)
        case (.instant(let x, _)?, .instant(let y, _)?):
            return x < y ? -1 : x > y ? 1 : 0
        case (.string(let text)?, .instant(_, let isDate)?):
            return compare(instant(text, isDate: isDate), b)
        case (.instant(_, let isDate)?, .string(let text)?):
            return compare(a, instant(text, isDate: isDate))
        default:
            return nil
        }
    }

    /// A string read as a date (`isDate`) or an RFC 3339 date-time; nil when it is not one.
    static func instant(_ text: String, isDate: Bool) -> Value? {
        if isDate { return TemporalLiteral.date(text).map { .instant($0, isDate: true) } }
        return Instant(rfc3339: text).map { .instant($0.microseconds, isDate: false) }
    }

    /// An instant or interval as the closed period `[start, end]` (instants `[t, t]`, open ends
    /// unbounded); a string is read as a date when it has the length of one, else as a date-time.
    static func period(_ value: Value?) -> (start: Int64, end: Int64)? {
        switch value {
        case .instant(let t, _)?: return (t, t)
        case .interval(let start, let end)?: return (start ?? .min, end ?? .max)
        case .string(let text)?: return period(instant(text, isDate: text.utf8.count == 10))
        default: return nil
        }
    }
}

extension Filter.TemporalPredicate {
    /// Allen's relation between the periods `a` and `b` (OGC 21-065r2, Temporal Functions).
    func holds(_ a: (start: Int64, end: Int64), _ b: (start: Int64, end: Int64)) -> Bool {
        switch self {
        case .after: return a.start > b.end
        case .before: return a.end < b.start
        case .contains: return a.start < b.start && a.end > b.end
        case .disjoint: return a.end < b.start || a.start > b.end
        case .during: return a.start > b.start && a.end < b.end
        case .equals: return a.start == b.start && a.end == b.end
        case .finishedBy: return a.start < b.start && a.end == b.end
        case .finishes: return a.start > b.start && a.end == b.end
        case .intersects: return a.start <= b.end && a.end >= b.start
        case .meets: return a.end == b.start
        case .metBy: return a.start == b.end
        case .overlappedBy: return a.start > b.start && a.start < b.end && a.end > b.end
        case .overlaps: return a.start < b.start && a.end > b.start && a.end < b.end
        case .startedBy: return a.start == b.start && a.end > b.end
        case .starts: return a.start == b.start && a.end < b.end
        }
    }
}

extension Filter.ArrayPredicate {
    /// The relation between two arrays, elements compared as `=` does; unknown when an element
    /// is null and the answer depends on it.
    func holds(_ a: [Filter.Value?], _ b: [Filter.Value?]) -> Bool? {
        func has(_ list: [Filter.Value?], _ item: Filter.Value?) -> Bool { list.contains { Filter.compare($0, item) == 0 } }
        switch self {
        case .equals:
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { Filter.compare($0, $1) == 0 }
        case .contains: return b.allSatisfy { has(a, $0) }
        case .containedBy: return a.allSatisfy { has(b, $0) }
        case .overlaps: return a.contains { has(b, $0) }
        }
    }
}
