import Timeline

/// When a failed delivery is tried again: one delay per retry, with full jitter (a random wait
/// between zero and the delay), never shorter than the receiver's `Retry-After`.
public struct BackoffSchedule: Hashable, Sendable, CustomStringConvertible {
    /// The delay before retry 1, 2, …; after the last one fails the event is dead-lettered.
    public let delays: [Duration]

    /// 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h: ten attempts over about 16 hours.
    public static let standard = BackoffSchedule(delays: [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800].map { .seconds($0) })
    /// The longest `Retry-After` honoured: a receiver cannot park an endpoint for longer than a day.
    public static let maxRetryAfter = Duration.seconds(86_400)

    public init(delays: [Duration]) {
        self.delays = delays
    }

    /// Parses `"1s,2s,4s"`: comma-separated numbers with a unit, `ms`, `s`, `m` or `h`; an empty
    /// list means no retry. `nil` when an item is malformed or negative.
    public init?(parsing text: String) {
        var delays: [Duration] = []
        if !text.allSatisfy({ $0 == " " }) {
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let delay = Self.duration(item.trimmingCharacters(in: " ")) else { return nil }
                delays.append(delay)
            }
        }
        self.init(delays: delays)
    }

    /// How many times an event is sent at most.
    public var attempts: Int { delays.count + 1 }

    /// The wait after failed attempt `attempt` (1-based), or nil when it was the last one.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, using generator: inout some RandomNumberGenerator) -> Duration? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        let ceiling = delays[attempt - 1]
        let jittered = Duration.nanoseconds(Int64.random(in: 0...max(0, ceiling.wholeNanoseconds), using: &generator))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.maxRetryAfter))
    }

    public var description: String { delays.map(Self.text).joined(separator: ",") }

    private static func duration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3_600)]
        for (unit, seconds) in units where text.hasSuffix(unit) {
            guard let value = Double(text.dropLast(unit.count)), value.isFinite, value >= 0, value * seconds <= 7 * 86_400 else { return nil }
            return .nanoseconds(Int64((value * seconds * 1e9).rounded()))
        }
        return nil
    }

    private static func text(_ duration: Duration) -> String {
        let ms = duration.wholeNanoseconds / 1_000_000
        if ms % 1_000 != 0 { return "\(ms)ms" }
        let s = ms / 1_000
        if s % 3_600 == 0, s > 0 { return "\(s / 3_600)h" }
        if s % 60 == 0, s > 0 { return "\(s / 60)m" }
        return "\(s)s"
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
