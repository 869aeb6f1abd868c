import MeridianHTTP
import MapGeometry
import MeridianAPI

extension MapGeometry.Tile {
    /// A tile from the wire: whole numbers, z within 0…28, x and y within the zoom's grid.
    init(_ wire: Components.Schemas.TileID) throws(FieldError) {
        try self.init(validatingZ: wire.value1.z, x: wire.value1.x, y: wire.value1.y)
    }
}

extension Components.Schemas.MapTile {
    init(_ tile: MapGeometry.Tile) {
        self.init(z: tile.z, x: tile.x, y: tile.y, quadkey: tile.quadkey, bounds: .init(tile.bounds), mapRect: .init(tile.mapRect))
    }
}

extension Components.Schemas.TileBounds {
    init(_ box: BoundingBox) {
        self.init(west: box.west, south: box.south, east: box.east, north: box.north)
    }
}
