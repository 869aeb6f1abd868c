import MeridianHTTP
import HTTPTypes

/// How lists page and long polls wait: one rule for every `limit`, `after` and `wait` parameter.
enum Paging {
    /// Items per page when `limit` is absent.
    static let defaultLimit = 100
    /// The `limit`s a request may ask for.
    static let limits = 1...1000
    /// Seconds a long poll may wait.
    static let waits = 0.0...60.0

    /// `limit`, or the default; 422 naming the parameter outside ``limits``.
    static func limit(_ given: Int?) throws(ProblemError) -> Int {
        try check(given ?? defaultLimit, parameter: "limit", in: limits)
    }

    /// A feed position to read after (0 = from the start); 422 when negative.
    static func after(_ given: Int64?) throws(ProblemError) -> Int64 {
        try check(given ?? 0, parameter: "after", in: 0...Int64.max)
    }

    /// How long a long poll waits (0 when absent); 422 outside ``waits``.
    static func wait(_ given: Double?) throws(ProblemError) -> Duration {
        .milliseconds(Int64(try check(given ?? 0, parameter: "wait", in: waits) * 1000))
    }

    /// A count or sequence written as text (a cursor, `Last-Event-ID`): decimal digits without a
    /// sign or leading zeros, at most 18 of them (the contract's `^(0|[1-9][0-9]{0,17})$`); 400
    /// naming the parameter otherwise.
    static func count(_ text: String, parameter: String) throws(ProblemError) -> Int64 {
        let digits = Array(text.utf8)
        guard (1...18).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              digits.count == 1 || digits[0] != UInt8(ascii: "0"), let value = Int64(text) else {
            throw ProblemError(.badRequest, detail: "\(parameter) must be a count written in decimal digits",
                               errors: [.init(parameter: parameter, detail: "must be 0 or a whole number without leading zeros, at most 18 digits")])
        }
        return value
    }

    /// `value` when it lies in `range`, else 422 naming the parameter.
    static func check<T: Comparable>(_ value: T, parameter: String, in range: ClosedRange<T>) throws(ProblemError) -> T {
        guard range.contains(value) else {
            throw ProblemError.invalid([.init(parameter: parameter, detail: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")])
        }
        return value
    }
}
