public import Foundation
import GRDB

/// A raster tile set in an MBTiles file (1.3), opened read-only: the base map of the page.
///
/// MBTiles rows count from the south (TMS), map clients' from the north (XYZ): ``tile(z:x:y:)``
/// takes XYZ and flips the row, `tile_row = 2^z − 1 − y`.
public final class MBTilesFile: Sendable {
    /// The zooms a tile path may name (the MBTiles 1.3 specification's tiles are 0–30).
    public static let zoomLevels = 0...30

    /// The file's `metadata` table (`name`, `format`, `minzoom`, `maxzoom`, `bounds`, `attribution`, …).
    public let metadata: [String: String]
    private let queue: DatabaseQueue

    /// Opens `path` read-only; nil when there is no file there. A file that is not an MBTiles
    /// file (no `tiles` table) throws.
    public init?(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "basemap"
        queue = try DatabaseQueue(path: path, configuration: configuration)
        metadata = try queue.read { db in
            guard try db.tableExists("tiles") else { throw StorageError.notMBTiles(path: path) }
            guard try db.tableExists("metadata") else { return [:] }
            return try Dictionary(
                Row.fetchAll(db, sql: "SELECT name, value FROM metadata").compactMap { row -> (String, String)? in
                    guard let name: String = row["name"], let value: String = row["value"] else { return nil }
                    return (name, value)
                },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// The tile's bytes as the file holds them, nil when it holds none (z, x and y in XYZ terms).
    public func tile(z: Int, x: Int, y: Int) async throws -> Data? {
        guard Self.zoomLevels.contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else { return nil }
        let row = (1 << z) - 1 - y
        return try await queue.read { db in
            try Data.fetchOne(
                db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                arguments: [z, x, row])
        }
    }
}
