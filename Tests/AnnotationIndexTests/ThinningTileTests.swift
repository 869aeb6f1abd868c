import Annotations
import MapGeometry
@testable import AnnotationIndex
import Testing
import Timeline

/// Tiles of the thinning: each item of a zoom in exactly one tile, the same item the thinning of
/// any view holding it answers.
@Suite struct ThinningTileTests {
    @Test(arguments: [0, 1, 2, 3, 5])
    func theTilesOfAZoomHoldEveryAnnotationOnce(zoom: Int) {
        let points = ThinningIndexTests.points(3_000, seed: UInt64(40 + zoom))
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let grid = ThinningGrid(zoom: zoom, cellSize: 64)
        var seen: [String: Int] = [:]
        var counted = 0
        for x in 0..<Tile.count(atZoom: zoom) {
            for y in 0..<Tile.count(atZoom: zoom) {
                let tile = Tile(z: zoom, x: x, y: y)
                for (item, position) in index.items(in: tile, grid: grid) {
                    // The tile of the position, by the slippy-map rule written out: floor(x / side), x
                    // within the world, y clamped to its rows.
                    let side = Mercator.worldSize / Double(1 << zoom)
                    let wrappedX = (position.x.truncatingRemainder(dividingBy: Mercator.worldSize) + Mercator.worldSize).truncatingRemainder(dividingBy: Mercator.worldSize)
                    #expect(Int(wrappedX / side) == x && min(max(Int((position.y / side).rounded(.down)), 0), (1 << zoom) - 1) == y)
                    switch item {
                    case .annotation(let id, _): seen[id.description, default: 0] += 1; counted += 1
                    case .cluster(let cluster): seen[cluster.id.description, default: 0] += 1; counted += cluster.count
                    }
                }
            }
        }
        #expect(counted == points.count)
        #expect(seen.values.allSatisfy { $0 == 1 }, "no item is in two tiles")
        // The same items as the thinning of the whole world at that zoom.
        let world = index.thin(MapRect(minX: 0, minY: 0, maxX: Mercator.worldSize, maxY: Mercator.worldSize), grid: grid)
        #expect(Set(seen.keys) == Set(world.items.map { item in
            switch item {
            case .annotation(let id, _): id.description
            case .cluster(let cluster): cluster.id.description
            }
        }))
    }

    /// A tile of many required annotations (never clustered) is cut as the thin answer cuts it.
    @Test func aTileHoldsAtMostItsLimitRequiredFirst() {
        let points = ThinningIndexTests.points(2_000, seed: 77)
        let index = ThinningIndex(entries: points.map(\.entry), sequence: 0)
        let items = index.items(in: Tile(z: 0, x: 0, y: 0), grid: ThinningGrid(zoom: 0, cellSize: 64), limit: 10)
        let required = Set(points.filter { $0.priority == 1000 }.map(\.id))
        #expect(items.count == 10 && required.count > 10)
        #expect(items.allSatisfy { if case .annotation(let id, _) = $0.item { required.contains(id) } else { false } })
    }

    @Test func aPointIsInTheTileMercantileNames() {
        // mercantile.tile(2.35, 48.85, 12) == Tile(x=2074, y=1409, z=12).
        #expect(Tile(z: 12, x: 2074, y: 1409).contains(Mercator.mapPoint(for: Coordinate(latitude: 48.85, longitude: 2.35))))
        // x wraps around the world (a centroid east of 180° is in the first column); y past the
        // world's edges is in the first or last row.
        #expect(Tile(z: 3, x: 0, y: 0).contains(MapPoint(x: Mercator.worldSize, y: -1)))
        #expect(Tile(z: 3, x: 7, y: 7).contains(MapPoint(x: -1, y: Mercator.worldSize)))
        let corner = Tile(z: 3, x: 2, y: 5).tileCoordinates(of: MapPoint(x: 2 * Tile.side(atZoom: 3), y: 5.5 * Tile.side(atZoom: 3)), extent: 4096)
        #expect(corner.x == 0 && corner.y == 2048)
    }
}
