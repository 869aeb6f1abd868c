import Foundation
import MapGeometry

/// The world-anchored grid a thinning answer uses: at zoom `z` a cell of `cellSize` screen points
/// is a square of 2^level map points, `level = 20 − z + log2(cellSize)`, so the cells of one
/// zoom nest in those of the zoom before and each is one range of Morton codes.
///
/// The grid is anchored a third of the world east of the antimeridian: x is shifted by
/// ``shift`` (binary 0101…) before coding, so the antimeridian lies a third or two thirds into
/// a cell at every level and points on both sides of 180° share cells like any others. The
/// grid's own seams (the shifted x = 0, 60°E) are as arbitrary as any grid's; the equator is one too.
public struct ThinningGrid: Hashable, Sendable {
    /// Cell sizes a request may ask for, in screen points; rounded to a power of two.
    public static let cellSizes: ClosedRange<Int> = 16...512
    /// log2 of the cell sizes actually used (16…512 round to 2^4…2^9).
    static let cellSizeExponents = exponent(of: cellSizes.lowerBound)...exponent(of: cellSizes.upperBound)
    /// The cell size of a request that names none.
    public static let defaultCellSize = 64
    /// Zoom levels the grid has.
    public static let zoomLevels: ClosedRange<Int> = 0...22
    /// The x shift of the grid's frame: ⌊2^28 / 3⌋, alternating bits.
    public static let shift: Double = 89_478_485

    /// The integer zoom whose grid this is (a fractional zoom uses its floor).
    public let zoom: Int
    /// log2 of the cell size in screen points.
    public let cellSizeExponent: Int

    /// The grid at `zoom` (0…22) with cells of about `cellSize` screen points (16…512).
    public init(zoom: Int, cellSize: Int) {
        precondition(Self.zoomLevels.contains(zoom) && Self.cellSizes.contains(cellSize))
        self.zoom = zoom
        cellSizeExponent = Self.exponent(of: cellSize)
    }

    /// The power of two nearest `cellSize`.
    static func exponent(of cellSize: Int) -> Int {
        Int(log2(Double(cellSize)).rounded())
    }

    init(zoom: Int, cellSizeExponent: Int) {
        self.zoom = zoom
        self.cellSizeExponent = cellSizeExponent
    }

    /// The cell size in screen points actually used: a power of two.
    public var cellSize: Int { 1 << cellSizeExponent }

    /// log2 of a cell's side in map points (at most 28: one cell is the world).
    ///
    /// At zoom z one screen point is 2^(20−z) map points (`zoomLevel = 20 + log2(zoomScale)`, so
    /// `zoomScale = 2^(z−20)` screen points per map point); a cell of 2^e screen points is therefore
    /// 2^(20−z+e) map points. Zoom 2 with 64-point cells: 2^24, so 16 × 16 cells cover the world.
    public var level: Int { min(20 - zoom + cellSizeExponent, MortonCode.bitsPerAxis) }

    /// Cells per axis: the world's 2^28 map points in cells of 2^level, 2^(28 − level) of them
    /// (1 once a cell is the whole world, 2^26 at zoom 22 with 16-point cells: level 20 − 22 + 4 = 2).
    var cellsPerAxis: Int { 1 << (MortonCode.bitsPerAxis - level) }

    /// The first zoom whose cells tell apart two codes that first differ at `bit` (0-based, of the interleave).
    func zoomSplitting(highestDifferingBit bit: Int) -> Int {
        20 + cellSizeExponent - bit / 2
    }

    /// The code range of cell (`column`, `row`).
    func codes(column: Int, row: Int) -> ClosedRange<UInt64> {
        let corner = MortonCode(x: UInt32(column << level), y: UInt32(row << level))
        return corner.cellRange(level: level)
    }

    /// The shifted x of a map point, in 0..<2^28.
    static func shiftedX(_ x: Double) -> Double {
        Mercator.wrapX(x + shift)
    }

    /// The map point of a shifted point (x may leave 0..<2^28 so a cell's points stay together).
    static func unshifted(x: Double, y: Double) -> MapPoint {
        MapPoint(x: x - shift, y: y)
    }

    /// The Morton code of a map point in the shifted frame.
    static func code(shiftedX x: Double, y: Double) -> UInt64 {
        MortonCode(MapPoint(x: x, y: y)).rawValue
    }

    /// The cells a map rect touches, as at most two rectangles of cells (columns wrap around the
    /// world, each column at most once; rows are clamped to the world): a view across the grid's
    /// seam is its two sides.
    func areas(touching rect: MapRect) -> [(columns: ClosedRange<Int>, rows: ClosedRange<Int>)] {
        let side = Double(1 << level)
        let n = cellsPerAxis
        let world = Mercator.worldSize
        let top = max(0, Int((max(rect.minY, 0) / side).rounded(.down)))
        let bottom = min(n - 1, Int((min(rect.maxY, world) / side).rounded(.up)) - 1)
        guard top <= bottom else { return [] }
        let first = Int(((rect.minX + Self.shift) / side).rounded(.down))
        let last = max(first, Int(((min(rect.maxX, rect.minX + world) + Self.shift) / side).rounded(.up)) - 1)
        if last - first + 1 >= n { return [(0...n - 1, top...bottom)] }
        let (start, end) = (((first % n) + n) % n, ((last % n) + n) % n)
        if start <= end { return [(start...end, top...bottom)] }
        return [(start...n - 1, top...bottom), (0...end, top...bottom)]
    }
}
