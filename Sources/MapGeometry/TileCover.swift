import Foundation

/// The tiles of one zoom covering a bounding box, west to east then north to south, without
/// listing them: a page is computed from its offset. A box across the antimeridian covers the
/// columns from its west edge to the world's east edge, then from the west edge to its east edge.
/// A tile that only touches the box's east or south edge is not in it (as mercantile counts);
/// a box of no width or height still covers the tile it lies in; an empty box (south north of
/// north) covers none.
public struct TileCover: Sendable {
    public let zoom: Int
    /// Columns in order, one or two runs.
    let columns: [ClosedRange<Int>]
    /// Rows, north to south; none for an empty box.
    let rows: Range<Int>

    public init(_ box: BoundingBox, zoom: Int) {
        self.zoom = zoom
        let last = Tile.count(atZoom: zoom) - 1
        let west = Tile.index(Mercator.x(forLongitude: box.west), zoom: zoom)
        let east = Self.lastIndex(Mercator.x(forLongitude: box.east), zoom: zoom, first: box.crossesAntimeridian ? 0 : west)
        columns = box.crossesAntimeridian ? [west...last, 0...east] : [west...east]
        let north = Tile.index(Mercator.y(forLatitude: box.north), zoom: zoom)
        rows = box.isEmpty ? north..<north : north..<Self.lastIndex(Mercator.y(forLatitude: box.south), zoom: zoom, first: north) + 1
    }

    /// How many tiles cover the box.
    public var count: Int { columns.reduce(0) { $0 + $1.count } * rows.count }

    /// The tiles from `offset`, at most `limit` of them.
    public func tiles(from offset: Int, limit: Int) -> [Tile] {
        let width = columns.reduce(0) { $0 + $1.count }
        guard offset < count else { return [] }
        return (offset..<min(offset + limit, count)).map { index in
            var column = index % width
            var x = 0
            for run in columns {
                if column < run.count { x = run.lowerBound + column; break }
                column -= run.count
            }
            return Tile(z: zoom, x: x, y: rows.lowerBound + index / width)
        }
    }

    /// The last column or row a box edge at `value` reaches: an edge exactly on a tile boundary
    /// ends the tile before it, unless that would end before `first`.
    static func lastIndex(_ value: Double, zoom: Int, first: Int) -> Int {
        let cells = value / Tile.side(atZoom: zoom)
        let last = Int(min(max(cells.rounded(.up) - 1, 0), Double(Tile.count(atZoom: zoom) - 1)))
        return max(last, first)
    }
}
