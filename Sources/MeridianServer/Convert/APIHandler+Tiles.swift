import MeridianHTTP
import MapGeometry
import MeridianAPI

/// XYZ tiles (tag Convert): which tile holds a coordinate, what a tile covers, which tiles cover a bbox.
extension APIHandler {
    func convertCoordinatesToTiles(_ input: Operations.ConvertCoordinatesToTiles.Input) async throws -> Operations.ConvertCoordinatesToTiles.Output {
        switch input.body {
        case .json(let body):
            let zoom: Int
            do { zoom = try Tile.zoom(body.zoom, field: "zoom") } catch { throw ProblemError.invalid(pointer: "/zoom", error.message) }
            let tiles = try convertBatch(body.coordinates, at: "coordinates", Coordinate.init) {
                Components.Schemas.MapTile(Tile(containing: $0, zoom: zoom))
            }
            return .ok(.init(body: .json(.init(tiles: tiles))))
        }
    }

    func convertTilesToRegions(_ input: Operations.ConvertTilesToRegions.Input) async throws -> Operations.ConvertTilesToRegions.Output {
        switch input.body {
        case .json(let body):
            let tiles = try convertBatch(body.tiles, at: "tiles", Tile.init) { $0 }
            return .ok(.init(body: .json(.init(
                regions: tiles.map { .init(Region($0.mapRect)) }, bounds: tiles.map { .init($0.bounds) }
            ))))
        }
    }

    func coverWithTiles(_ input: Operations.CoverWithTiles.Input) async throws -> Operations.CoverWithTiles.Output {
        let zoom: Int
        do { zoom = try Tile.zoom(input.query.zoom, field: "zoom") } catch {
            throw ProblemError.invalid([.init(parameter: "zoom", detail: error.message)])
        }
        let box = try Self.bbox(input.query.bbox)
        let limit = try Paging.check(input.query.limit ?? Limits.tilesPerPage.upperBound, parameter: "limit", in: Limits.tilesPerPage)
        // The cursor counts the tiles before the page; any count the pattern allows continues from there.
        let offset = try input.query.cursor.map { Int(try Paging.count($0, parameter: "cursor")) } ?? 0
        let cover = TileCover(box, zoom: zoom)
        let tiles = cover.tiles(from: offset, limit: limit)
        let next = offset + tiles.count < cover.count ? String(offset + tiles.count) : nil
        return .ok(.init(body: .json(.init(tiles: tiles.map(Components.Schemas.MapTile.init), total: cover.count, nextCursor: next))))
    }
}
