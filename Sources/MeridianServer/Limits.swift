/// The request limits handlers enforce.
struct Limits: Sendable {
    /// Most items in one batch.
    var maxBatchSize: Int
    /// How long an event stream may be silent before it sends a heartbeat comment.
    var heartbeat: Duration = .seconds(15)

    /// Tiles one page of `GET /v1/tiles/cover` may hold (the default is the most).
    static let tilesPerPage = 1...10_000
}
