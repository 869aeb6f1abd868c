import Foundation
import MapGeometry
import TestSupport
import Testing

/// Check values from mercantile's documentation (`bounds(486, 332, 10)`, `quadkey(486, 332, 10)`,
/// `tile(-105, 40, 1)`); the cross-check script compares many more against mercantile itself.
@Suite struct TileTests {
    @Test func mercantilesDocumentedTile() {
        let tile = Tile(z: 10, x: 486, y: 332)
        #expect(tile.quadkey == "0313102310")
        #expect(tile.bounds.west == -9.140625 && tile.bounds.east == -8.7890625)
        #expect(abs(tile.bounds.north - 53.33087298301705) < 1e-12 && abs(tile.bounds.south - 53.12040528310657) < 1e-12)
        #expect(Tile(containing: Coordinate(latitude: 40, longitude: -105), zoom: 1) == Tile(z: 1, x: 0, y: 0))
        #expect(Tile(z: 0, x: 0, y: 0).quadkey == "")
        #expect(tile.mapRect == MapRect(minX: 486 * 262_144, minY: 332 * 262_144, maxX: 487 * 262_144, maxY: 333 * 262_144))
    }

    @Test func edgesClampToTheWorld() {
        for zoom in [0, 1, 7, 28] {
            let last = Tile.count(atZoom: zoom) - 1
            #expect(Tile(containing: Coordinate(latitude: 90, longitude: 180), zoom: zoom) == Tile(z: zoom, x: last, y: 0))
            #expect(Tile(containing: Coordinate(latitude: -90, longitude: -180), zoom: zoom) == Tile(z: zoom, x: 0, y: last))
            #expect(Tile(containing: Coordinate(latitude: -85.0511287798066, longitude: 179.999999), zoom: zoom).y == last)
        }
    }

    @Test func aTileHoldsThePointsOfItsOwnBoundsAtEveryZoom() {
        var random = SeededGenerator(seed: 28)
        for _ in 0..<5_000 {
            let zoom = Int.random(in: 0...28, using: &random)
            let coordinate = Coordinate(latitude: Double.random(in: -85...85, using: &random), longitude: Double.random(in: -180..<180, using: &random))
            let tile = Tile(containing: coordinate, zoom: zoom)
            let bounds = tile.bounds
            #expect(bounds.west <= coordinate.longitude && coordinate.longitude < bounds.east, "\(coordinate) z\(zoom)")
            #expect(bounds.south <= coordinate.latitude && coordinate.latitude <= bounds.north, "\(coordinate) z\(zoom)")
            // The north-west corner of a tile is in that tile, exactly.
            let corner = Mercator.coordinate(for: tile.mapRect.origin)
            let again = Tile(containing: Coordinate(latitude: corner.latitude, longitude: bounds.west), zoom: zoom)
            #expect(again.x == tile.x, "corner of \(tile)")
        }
    }

    @Test func badTilesNameTheField() {
        #expect(throws: FieldError.self) { try Tile(validatingZ: 1.5, x: 0, y: 0) }
        #expect(throws: FieldError.self) { try Tile(validatingZ: 29, x: 0, y: 0) }
        #expect(throws: FieldError.self) { try Tile(validatingZ: 2, x: 4, y: 0) }
        #expect(throws: FieldError.self) { try Tile(validatingZ: 2, x: 1, y: 0.5) }
        #expect((try? Tile(validatingZ: 2, x: 3, y: 3)) == Tile(z: 2, x: 3, y: 3))
    }

    @Test func aCoverCrossesTheAntimeridianAndPagesByOffset() {
        let box = BoundingBox(west: 170, south: -20, east: -170, north: -10)
        let cover = TileCover(box, zoom: 3)
        // Columns 7 (157.5…180) then 0 (−180…−135); rows 4 (−0…−40.98).
        #expect(cover.count == 2)
        #expect(cover.tiles(from: 0, limit: 10) == [Tile(z: 3, x: 7, y: 4), Tile(z: 3, x: 0, y: 4)])
        #expect(cover.tiles(from: 1, limit: 10) == [Tile(z: 3, x: 0, y: 4)])
        #expect(cover.tiles(from: 2, limit: 10).isEmpty)
        // An edge on a tile boundary does not pull in the tile beyond it; a point box is one tile.
        #expect(TileCover(BoundingBox(west: 0, south: 0, east: 45, north: 40.979898069620134), zoom: 3).count == 1)
        #expect(TileCover(BoundingBox(west: 10, south: 10, east: 10, north: 10), zoom: 5).count == 1)
        #expect(TileCover(BoundingBox(west: -180, south: -90, east: 180, north: 90), zoom: 4).count == 256)
        #expect(TileCover(BoundingBox(west: 0, south: 10, east: 1, north: 5), zoom: 4).count == 0)
    }
}
