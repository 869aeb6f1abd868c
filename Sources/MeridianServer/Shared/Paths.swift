/// Paths the router's own middleware names (the contract's operations route by themselves).
enum Paths {
    static let coordinatesToMapPoints = "/v1/convert/coordinates-to-map-points"
    static let mapPointsToCoordinates = "/v1/convert/map-points-to-coordinates"
    /// Bulk imports: their own body limit and a fast path.
    static let annotationImport = "/v1/annotations/import"
    static let thin = "/v1/annotations/thin"
    static let search = "/v1/annotations/search"
    static let nearest = "/v1/annotations/nearest"
    /// Server-Sent Events of the event log.
    static let eventStream = "/v1/events/stream"
    /// The long polls (a `wait` parameter): the change feed and the event log.
    static let longPolls: Set<String> = ["/v1/annotations/changes", "/v1/events", "/v1/subscriptions/{subscriptionId}/events"]
    /// `POST /v1/devices/{deviceId}/locations` is the prefix, a device id and the suffix.
    static let devicePrefix = "/v1/devices/"
    static let locationsSuffix = "/locations"
    /// `GET /v1/clusters/{id}` is this prefix and an id.
    static let clusterPrefix = "/v1/clusters/"
    /// The cluster tiles, as their TileJSON names them.
    static let clusterTileTemplate = "/v1/tiles/clusters/{z}/{x}/{y}.mvt"
    /// The tracking apps' protocols (``IngestAdapterRoutes``).
    static let ingestPrefix = "/v1/ingest/"
    static let ownTracks = "/v1/ingest/owntracks", osmAnd = "/v1/ingest/osmand", overland = "/v1/ingest/overland"
    static let ingestAdapters: Set<String> = [ownTracks, osmAnd, overland]
}
