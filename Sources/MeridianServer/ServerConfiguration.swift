public import MeridianHTTP
import Foundation
public import Delivery
public import Logging
public import Storage
public import Tracking

/// Everything the server needs to start, with the defaults `meridian serve` uses.
///
/// | key | default | meaning |
/// | --- | --- | --- |
/// | `host` | `127.0.0.1` | address to listen on |
/// | `port` | `8080` | port to listen on; 0 picks a free one |
/// | `databasePath` | `./meridian.sqlite` | SQLite file; `:memory:` for tests |
/// | `logLevel` | `.info` | swift-log level |
/// | `maxBodySize` | 1 MiB | larger request bodies answer 413 |
/// | `maxImportBodySize` | 64 MiB | limit of `POST /v1/annotations/import` |
/// | `maxBatchSize` | 10 000 | items per conversion batch |
/// | `eventStreamHeartbeat` | 15 s | silence after which `/v1/events/stream` sends a heartbeat comment |
/// | `maxWait` | none | cap on long-poll waits and on an event stream's life (a contract fuzzer's run) |
/// | `openWhenNoKeys` | true | serve without keys while none was ever created (`serve` sets it only on loopback or `--insecure-open`) |
/// | `rateLimit`, `rateBurst` | 1 000/s, 2 000 | each key's token bucket: requests per second and burst; more answer 429 |
/// | `requestTimeout` | 30 s | a request still unanswered after this answers 503 (streams and long polls excepted) |
/// | `maxStreamsPerKey` | 16 | open event streams and long polls per key; more answer 429 |
/// | `delivery` | ``DeliverySettings`` | webhook backoff, attempt timeout, address ranges allowed past the SSRF guard |
/// | `annotationCacheBytes` | 512 MiB | per tenant, annotations' JSON kept for query answers (0: none) |
/// | `connections` | ``ConnectionLimits`` | 60 s for a new connection's head, 60 s between body reads, 75 s idle between requests, 256 connections per address |
/// | `heavyQueriesPerTenant` | half the cores, at least 1 | per tenant, expensive queries (filters read over rows, exports) running at once; more wait their turn |
/// | `webRoot` | `./Web` | the map page's folder (`index.html`, `app.js`, `app.css`, and `vendor/` from `make web`) |
/// | `baseMapPath` | `./Web/vendor/basemap.mbtiles` | the MBTiles (raster) file `/tiles/osm` serves |
/// | `retention` | keep everything | the default periods fixes and events are kept (``RetentionPolicy``); a tenant may set its own |
/// | `retentionPace` | ``RetentionPace`` | 200 rows per deletion batch, at most 10 000 rows/s (`--retention-rate`), a sweep every 60 s |
/// | `corsOrigins` | none | origins whose pages may call the API from a browser (`https://app.example.com`); `*` for any, open mode only |
public struct ServerConfiguration: Sendable {
    /// Address to listen on.
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// SQLite file the server keeps its data in; `:memory:` for a database that lives with the process.
    public var databasePath: String
    /// swift-log level.
    public var logLevel: Logger.Level
    /// Largest accepted request body, in bytes.
    public var maxBodySize: Int
    /// Largest accepted GeoJSON import body, in bytes.
    public var maxImportBodySize: Int
    /// Most items in one batch.
    public var maxBatchSize: Int
    /// Silence after which an event stream sends a heartbeat comment.
    public var eventStreamHeartbeat: Duration = .seconds(15)
    /// When set, long polls answer after at most this long whatever `wait` asked for, and event
    /// streams end after it (clients resume with `Last-Event-ID`); for runs that must finish.
    public var maxWait: Duration?
    /// Whether requests need no key while no key was ever created (open mode).
    public var openWhenNoKeys = true
    /// Requests per second each key may make on average.
    public var rateLimit: Double = 1_000
    /// Requests each key may make at once.
    public var rateBurst: Double = 2_000
    /// How long a request may take before it answers 503 (event streams and long polls excepted).
    public var requestTimeout: Duration = .seconds(30)
    /// Most event streams and long polls one key holds open at once.
    public var maxStreamsPerKey = 16
    /// How webhooks are sent: backoff schedule, attempt timeout, ranges the SSRF guard lets through.
    public var delivery = DeliverySettings()
    /// Bytes of annotations' JSON each tenant keeps for query answers (``EncodedAnnotations``); 0 keeps none.
    public var annotationCacheBytes = 512 << 20
    /// Head, body and idle timeouts of a connection, and how many one address may hold open.
    public var connections = ConnectionLimits()
    /// Expensive queries (a filter applied to rows, an export) one tenant runs at once; the rest
    /// wait their turn, so one tenant's load holds at most this many database readers and cores:
    /// half the machine's cores, at least 1.
    public var heavyQueriesPerTenant = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// The map page's folder: `GET /` is its `index.html`, `/web/…` its other files.
    public var webRoot = WebPage.defaultRoot
    /// The MBTiles (raster) file of the base map; a missing file leaves the page without one.
    public var baseMapPath = WebPage.defaultBaseMap
    /// How long fixes and events are kept unless a tenant sets its own (`--keep-fixes`, `--keep-events`); nil members keep everything.
    public var retention = RetentionPolicy()
    /// How the retention task deletes: rows per transaction, the pause after each, time between sweeps.
    public var retentionPace = RetentionPace()
    /// Origins (`scheme://host[:port]`) whose web pages may call the API (CORS); `*` allows any
    /// page, and a server with keys refuses to start with it. Empty: no cross-origin access.
    public var corsOrigins: [String] = []

    /// A configuration; every key has the documented default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        databasePath: String = MeridianDatabase.defaultPath,
        logLevel: Logger.Level = .info,
        maxBodySize: Int = 1 << 20,
        maxImportBodySize: Int = 64 << 20,
        maxBatchSize: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.logLevel = logLevel
        self.maxBodySize = maxBodySize
        self.maxImportBodySize = maxImportBodySize
        self.maxBatchSize = maxBatchSize
    }

    /// In-memory database, any free port, quiet logs: what tests use.
    public static var testing: ServerConfiguration {
        ServerConfiguration(port: 0, databasePath: ":memory:", logLevel: .warning)
    }
}
