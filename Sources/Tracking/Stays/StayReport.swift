public import Timeline

extension StaySegmenter {
    /// Fixes read per store query.
    public static let chunk = 2_000

    /// Segments the fixes from `from` to `to`, read in chunks from `fixes(from, limit)` (timestamp
    /// order, bounds included), until `enough` says the answer holds what a page needs or the range
    /// ends (then the stay holding its last fix is going on: ``finish()``).
    public static func read(
        rule: StayRule, from: Instant?, to: Instant?,
        fixes: (_ from: Instant?, _ limit: Int) async throws -> [LocationFix], until enough: (StaySegmenter) -> Bool
    ) async throws -> StaySegmenter {
        var segmenter = StaySegmenter(rule: rule)
        var start = from
        while true {
            let chunk = try await fixes(start, Self.chunk)
            for fix in chunk where to.map({ fix.timestamp <= $0 }) ?? true { segmenter.add(fix) }
            if enough(segmenter) { return segmenter }
            guard chunk.count == Self.chunk, let last = chunk.last else { break }
            start = Instant(microseconds: last.timestamp.microseconds + 1)
        }
        segmenter.finish()
        return segmenter
    }
}
