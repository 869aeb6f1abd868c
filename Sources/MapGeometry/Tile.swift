import Foundation

/// A map tile as MKTileOverlay and "slippy map" servers name it: zoom `z`, column `x` from the
/// 180th meridian eastwards, row `y` from the world's top edge downwards. A tile of zoom z is a
/// square map rect of 2^(28−z) map points (256 screen points at zoom z).
public struct Tile: Hashable, Sendable {
    /// The zooms tiles exist at: from one tile for the world to one map point per tile.
    public static let zoomLevels: ClosedRange<Int> = 0...28

    public let z: Int
    public let x: Int
    public let y: Int

    /// A tile with no checks.
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// A tile from untrusted input: whole numbers, z within ``zoomLevels``, x and y within 0…2^z − 1.
    public init(validatingZ z: Double, x: Double, y: Double) throws(FieldError) {
        let zoom = try Self.zoom(z, field: "z")
        let last = Self.count(atZoom: zoom) - 1
        self.init(z: zoom, x: try Self.whole(x, field: "x", in: 0...last), y: try Self.whole(y, field: "y", in: 0...last))
    }

    /// A zoom from untrusted input: a whole number within ``zoomLevels``.
    public static func zoom(_ value: Double, field: String) throws(FieldError) -> Int {
        try whole(value, field: field, in: zoomLevels)
    }

    /// A whole number within `range`, or the error naming `field`.
    private static func whole(_ value: Double, field: String, in range: ClosedRange<Int>) throws(FieldError) -> Int {
        try FieldError.check(value, field: field, in: Double(range.lowerBound)...Double(range.upperBound))
        guard value == value.rounded() else { throw FieldError(path: [field], message: "must be a whole number, got \(value)") }
        return Int(value)
    }

    /// Tiles across (and down) the world at a zoom: 2^z.
    public static func count(atZoom z: Int) -> Int { 1 << z }

    /// A tile's side in map points at a zoom: 2^(28 − z), a power of two.
    public static func side(atZoom z: Int) -> Double { Mercator.worldSize / Double(count(atZoom: z)) }

    /// The tile of zoom `z` holding a coordinate. Latitudes past ±85.0511287798066° clamp (a pole is
    /// in the first or last row); longitude 180 is in the last column. Exact: a map point divided by
    /// a power of two, then the floor.
    public init(containing coordinate: Coordinate, zoom z: Int) {
        let point = Mercator.mapPoint(for: coordinate)
        self.init(z: z, x: Self.index(point.x, zoom: z), y: Self.index(point.y, zoom: z))
    }

    /// Whether a map point lies in this tile: its column (x wrapped around the world) and row,
    /// found as ``init(containing:zoom:)`` finds them, are the tile's. Every point of the map is
    /// in exactly one tile of a zoom.
    public func contains(_ point: MapPoint) -> Bool {
        Self.index(Mercator.wrapX(point.x), zoom: z) == x && Self.index(point.y, zoom: z) == y
    }

    /// A point of this tile in tile coordinates: 0…`extent` across the tile from its north-west
    /// corner, y down (a vector tile's frame).
    public func tileCoordinates(of point: MapPoint, extent: Double) -> (x: Double, y: Double) {
        let rect = mapRect
        let scale = extent / rect.size.width
        return ((Mercator.wrapX(point.x) - rect.minX) * scale, (point.y - rect.minY) * scale)
    }

    /// The column or row of a map-point value, held within the world.
    static func index(_ value: Double, zoom z: Int) -> Int {
        let cell = (value / side(atZoom: z)).rounded(.down)
        return Int(min(max(cell, 0), Double(count(atZoom: z) - 1)))
    }

    /// The square of the map the tile covers.
    public var mapRect: MapRect {
        let side = Self.side(atZoom: z)
        return MapRect(origin: MapPoint(x: Double(x) * side, y: Double(y) * side), size: MapSize(width: side, height: side))
    }

    /// Its edges in degrees: west and east longitudes, south and north latitudes.
    public var bounds: BoundingBox {
        let rect = mapRect
        return BoundingBox(
            west: Double(x) / Double(Self.count(atZoom: z)) * 360 - 180, south: Mercator.latitude(forY: rect.maxY),
            east: Double(x + 1) / Double(Self.count(atZoom: z)) * 360 - 180, north: Mercator.latitude(forY: rect.minY)
        )
    }

    /// Bing's quadkey: one base-4 digit per zoom, from the top (empty at zoom 0).
    public var quadkey: String {
        String((0..<z).reversed().map { level -> Character in
            let digit = ((x >> level) & 1) | (((y >> level) & 1) << 1)
            return Character(String(digit))
        })
    }
}
