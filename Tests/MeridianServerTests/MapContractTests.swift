import Access
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import MeridianAPI
@testable import MeridianServer
import NIOCore
import Testing
import TestSupport

/// The map page, its base map from an MBTiles file, and cluster vector tiles over HTTP. (The
/// tiles' content is checked against the thin answer by the cross-check script, decoded with
/// mapbox-vector-tile; the page itself by scripts/page-test.py in headless Chromium.)
@Suite(.watchdog) struct MapContractTests {
    /// An MBTiles file of zooms 0–1 whose every row holds different bytes, so a missing or wrong
    /// row flip shows; its `format` is `format`.
    static func makeMBTiles(format: String = "png") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-basemap-\(UUID()).mbtiles").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name text, value text);
                CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                """)
            for (name, value) in [("format", format), ("minzoom", "0"), ("maxzoom", "1"), ("attribution", "test tiles"), ("bounds", "-180,-85,180,85")] {
                try db.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [name, value])
            }
            for z in 0...1 { for x in 0..<(1 << z) { for row in 0..<(1 << z) {
                try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [z, x, row, Data("z\(z) x\(x) tms-row\(row)".utf8)])
            } } }
        }
        return path
    }

    @Test func baseMapRowsAreFlippedFromTMSAndRevalidated() async throws {
        let file = try Self.makeMBTiles()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestApp.withClient(configure: { $0.baseMapPath = file }) { client in
            // XYZ row 0 is the north: the file's TMS row 2^z − 1 − 0 = 1.
            let north = try await client.send(.get, "/tiles/osm/1/0/0.png")
            #expect(north.status == .ok && String(buffer: north.body) == "z1 x0 tms-row1")
            #expect(north.headers[.contentType] == "image/png" && north.headers[.cacheControl] == "public, max-age=86400")
            #expect(String(buffer: try await client.send(.get, "/tiles/osm/1/1/1.png").body) == "z1 x1 tms-row0")
            let tag = try #require(north.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
            let again = try await client.send(.get, "/tiles/osm/1/0/0.png", headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified && again.headers[.eTag] == tag && again.body.readableBytes == 0)
            #expect(again.headers[.cacheControl] == "public, max-age=86400", "a 304 carries the 200's Cache-Control (RFC 9110 §15.4.5)")
            let other = try await client.send(.get, "/tiles/osm/1/0/1.png", headers: [.ifNoneMatch: tag])
            #expect(other.status == .ok, "another tile's tag does not match")
            for missing in ["/tiles/osm/2/0/0.png", "/tiles/osm/1/2/0.png", "/tiles/osm/1/0/2.png", "/tiles/osm/30/0/0.png", "/tiles/osm/1/1073741823/0.png"] {
                let problem = try await client.send(.get, missing).problem(.notFound)
                #expect(problem.detail?.contains("no tile") == true, "\(missing)")
            }
            _ = try await client.send(.get, "/tiles/osm/1/0/x.png").problem(.badRequest)
            #expect(try await client.send(.get, "/tiles/osm/1/-1/0.png").problem(.unprocessableContent).errors?.first?.parameter == "x")
            #expect(try await client.send(.get, "/tiles/osm/31/0/0.png").problem(.unprocessableContent).errors?.first?.parameter == "z")
            let info = try await client.get("/tiles/osm.json", as: Components.Schemas.TileJSON.self)
            #expect(info.tiles.count == 1 && info.tiles[0].hasSuffix("/tiles/osm/{z}/{x}/{y}.png") && info.minzoom == 0 && info.maxzoom == 1)
            #expect(info.attribution == "test tiles" && info.bounds == [-180, -85, 180, 85] && info.format == "png")
        }
    }

    @Test func aJPEGBaseMapSaysSo() async throws {
        let file = try Self.makeMBTiles(format: "jpg")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await TestApp.withClient(configure: { $0.baseMapPath = file }) { client in
            let tile = try await client.send(.get, "/tiles/osm/0/0/0.png")
            #expect(tile.headers[.contentType] == "image/jpeg")
        }
    }

    /// What `make web` installs: every tile a Leaflet page asks for at zoom 0–6, byte for byte the
    /// file's row `2^z − 1 − y`.
    @Test func theShippedBaseMapHasEveryTileOfZoomsZeroToSix() async throws {
        let path = WebPage.defaultBaseMap
        try #require(FileManager.default.fileExists(atPath: path), "run make web: \(path) is missing")
        var configuration = Configuration()
        configuration.readonly = true
        let file = try DatabaseQueue(path: path, configuration: configuration)
        try await TestApp.withClient { client in
            var checked = 0
            for z in 0...6 {
                let rows = try await file.read { db in
                    try Row.fetchAll(db, sql: "SELECT tile_column, tile_row, tile_data FROM tiles WHERE zoom_level = ?", arguments: [z])
                }
                var held: [Int: Data] = [:]
                for row in rows { held[(row["tile_column"] as Int) << 8 | (row["tile_row"] as Int)] = row["tile_data"] }
                for x in 0..<(1 << z) { for y in 0..<(1 << z) {
                    let response = try await client.send(.get, "/tiles/osm/\(z)/\(x)/\(y).png")
                    let expected = held[x << 8 | ((1 << z) - 1 - y)]
                    #expect(response.status == .ok && expected != nil && Data(response.body.readableBytesView) == expected, "\(z)/\(x)/\(y)")
                    checked += 1
                } }
            }
            #expect(checked == 5_461)
            _ = try await client.send(.get, "/tiles/osm/7/0/0.png").problem(.notFound)
        }
    }

    @Test func thePageIsServedOrSaysToRunMakeWeb() async throws {
        try await TestApp.withClient { client in
            let page = try await client.send(.get, "/")
            #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: page.body).contains("/web/app.js"))
            let script = try await client.send(.get, "/web/app.js")
            #expect(script.status == .ok && script.headers[.cacheControl] == "no-cache")
            _ = try await client.send(.get, "/web/nothing.js").problem(.notFound)
            // Only the page's files: not the base map's file, not the page itself under /web/.
            _ = try await client.send(.get, "/web/vendor/basemap.mbtiles").problem(.notFound)
            _ = try await client.send(.get, "/web/index.html").problem(.notFound)
            _ = try await client.send(.get, "/web/../Package.swift").problem(.notFound)
            _ = try await client.send(.get, "/web/vendor/leaflet/../basemap.mbtiles").problem(.badRequest)
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("meridian-web-\(UUID())").path
        try await TestApp.withClient(configure: { $0.webRoot = empty; $0.baseMapPath = empty + "/none.mbtiles" }) { client in
            let problem = try await client.send(.get, "/").problem(.serviceUnavailable)
            #expect(problem.detail?.contains("make web") == true)
            #expect(try await client.send(.get, "/tiles/osm/0/0/0.png").problem(.serviceUnavailable).detail?.contains("--basemap") == true)
            _ = try await client.send(.get, "/tiles/osm.json").problem(.serviceUnavailable)
        }
    }

    @Test func thePageAndItsBaseMapNeedNoKeyButClusterTilesDo() async throws {
        try await KeyedApp.withClient(keys: [("acme", .reader)]) { client, tokens, _ in
            for path in ["/", "/web/app.js", "/web/vendor/leaflet/leaflet.css", "/tiles/osm.json", "/tiles/osm/0/0/0.png"] {
                #expect(try await client.send(.get, path, key: nil).status == .ok, "\(path)")
            }
            _ = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", key: nil).problem(.unauthorized)
            #expect(try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", key: tokens["acme/reader"]).status == .ok)
        }
    }

    /// Two tenants at the same index position: one's tag never revalidates the other's tile.
    @Test func aClusterTileTagIsItsTenants() async throws {
        try await KeyedApp.withClient(keys: [("acme", .admin), ("globex", .admin)]) { client, tokens, _ in
            let (a, b) = (tokens["acme/admin"]!, tokens["globex/admin"]!)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":1,"longitude":1}}"#, key: a)
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":-1,"longitude":-1}}"#, key: b)
            let acme = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", key: a)
            let tag = try #require(acme.headers[.eTag])
            let globex = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", key: b, headers: [.ifNoneMatch: tag])
            #expect(globex.status == .ok && globex.headers[.eTag] != tag && globex.body != acme.body)
        }
    }

    @Test func clusterTilesRevalidateUntilAWrite() async throws {
        try await TestApp.withClient { client in
            for i in 0..<3 { _ = try await client.createAnnotation(#"{"coordinate":{"latitude":48.85,"longitude":2.3\#(i)},"kind":"cafe"}"#) }
            let tile = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt")
            #expect(tile.status == .ok && tile.headers[.contentType] == "application/vnd.mapbox-vector-tile" && tile.body.readableBytes > 0)
            #expect(tile.headers[.cacheControl] == "private, no-cache")
            let tag = try #require(tile.headers[.eTag])
            let revalidated = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", headers: [.ifNoneMatch: tag])
            #expect(revalidated.status == .notModified && revalidated.headers[.cacheControl] == "private, no-cache")
            #expect(tile.headers[values: .vary] == ["Authorization", "Accept-Encoding"] && revalidated.headers[values: .vary] == tile.headers[values: .vary])
            _ = try await client.createAnnotation(#"{"coordinate":{"latitude":10,"longitude":10}}"#)
            let after = try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt", headers: [.ifNoneMatch: tag])
            #expect(after.status == .ok && after.headers[.eTag] != tag)
            // A tile with nothing in it is zero bytes; a filter nothing matches too.
            #expect(try await client.send(.get, "/v1/tiles/clusters/10/0/0.mvt").body.readableBytes == 0)
            #expect(try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt?kinds=shop").body.readableBytes == 0)
            #expect(try await client.send(.get, "/v1/tiles/clusters/0/0/0.mvt?kinds=cafe&filter=kind%20%3D%20%27cafe%27").body.readableBytes > 0)
        }
    }

    @Test(arguments: [
        ("/v1/tiles/clusters/23/0/0.mvt", 422, "z"), ("/v1/tiles/clusters/11/-291/321.mvt", 422, "x"), ("/v1/tiles/clusters/2/0/4194304.mvt", 422, "y"), ("/v1/tiles/clusters/2/4/0.mvt", 404, nil), ("/v1/tiles/clusters/2/0/4.mvt", 404, nil),
        ("/v1/tiles/clusters/2/0/0.mvt?cellSize=8", 422, "cellSize"), ("/v1/tiles/clusters/2/0/0.mvt?minDisplayPriority=1001", 422, "minDisplayPriority"),
        ("/v1/tiles/clusters/2/0/0.mvt?filter=kind%20%3D", 422, "filter"), ("/v1/tiles/clusters/2/0/a.mvt", 400, "y"),
    ])
    func badClusterTilesNameTheParameter(path: String, status: Int, parameter: String?) async throws {
        try await TestApp.withClient { client in
            let problem = try await client.send(.get, path).problem(HTTPResponse.Status(code: status))
            #expect(problem.errors?.first?.parameter == parameter, "\(path)")
        }
    }

    /// The cluster tiles' TileJSON: absolute tile URLs from the request's Host (https behind a
    /// proxy that says so), the thinning's zooms, the layers the tiles hold. (The cross-check
    /// decodes tiles against its `vector_layers`.)
    @Test func theClusterTilesTileJSONNamesAbsoluteURLsAndTheLayers() async throws {
        let app = try await buildApplication(try await TestApp.configuration())
        try await app.test(.live) { client in
            let info = try await client.get("/tiles/clusters.json", as: Components.Schemas.TileJSON.self)
            let template = try #require(info.tiles.first)
            #expect(template.hasPrefix("http://") && template.hasSuffix("/v1/tiles/clusters/{z}/{x}/{y}.mvt") && !template.hasPrefix("http:///"))
            #expect(info.tilejson == ._3_0_0 && info.minzoom == 0 && info.maxzoom == 22 && info.format == "pbf")
            #expect(info.vectorLayers?.map(\.id) == ["clusters", "annotations"])
            #expect(info.vectorLayers?.first?.fields.additionalProperties["count"] == "Number")
            let proxied = try await client.send(.get, "/tiles/clusters.json", headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(try proxied.decode(Components.Schemas.TileJSON.self).tiles.first?.hasPrefix("https://") == true)
            let base = try await client.get("/tiles/osm.json", as: Components.Schemas.TileJSON.self)
            #expect(base.tiles.first?.hasPrefix("http://") == true && base.tiles.first?.hasSuffix("/tiles/osm/{z}/{x}/{y}.png") == true)
        }
    }
}
