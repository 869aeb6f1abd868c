import MeridianHTTP

/// The request limits handlers enforce.
struct Limits: Sendable {
    /// Most items in one batch.
    var maxBatchSize: Int
    /// How long an event stream may be silent before it sends a heartbeat comment.
    var heartbeat: Duration = .seconds(15)
    /// Cap on long-poll waits and event-stream lives (``ServerConfiguration/maxWait``).
    var maxWait: Duration?

    /// How long a long poll asked to wait `wait` seconds waits (422 outside ``Paging/waits``).
    func wait(_ wait: Double?) throws(ProblemError) -> Duration {
        let asked = try Paging.wait(wait)
        return maxWait.map { min($0, asked) } ?? asked
    }

    /// Tiles one page of `GET /v1/tiles/cover` may hold (the default is the most).
    static let tilesPerPage = 1...10_000
}
