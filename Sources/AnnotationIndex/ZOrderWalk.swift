import MapGeometry

/// Visiting only the occupied cells of a rectangle in codes sorted by Morton (z-order) code.
///
/// A cell at grid level `level` is the code range sharing the code's bits above `2 · level`, so
/// `code >> (2 · level)` is the cell's own Morton number in cell coordinates. A rectangle of cells
/// is not one range of such numbers, but from any number outside it ``nextInside(after:minimum:maximum:)``
/// (Tropf and Herzog's BIGMIN) finds the next number inside: a walk costs one search per occupied
/// cell and one per gap the curve makes through the rectangle's range, not one per cell, so an
/// empty or sparse view costs a few searches whatever its size.
enum ZOrder {
    /// The Morton number of cell (`column`, `row`): column bits even, row bits odd.
    static func number(column: Int, row: Int) -> UInt64 {
        MortonCode.spread(UInt32(column)) | MortonCode.spread(UInt32(row)) << 1
    }

    static func column(of number: UInt64) -> Int { Int(MortonCode.compact(number)) }
    static func row(of number: UInt64) -> Int { Int(MortonCode.compact(number >> 1)) }

    /// The smallest number greater than `number` whose cell lies in the rectangle with corners
    /// `minimum` and `maximum` (the numbers of its lowest and highest corner cells); `number` is
    /// outside it and between the two. (Tropf & Herzog 1981, "Multidimensional range search in
    /// dynamically balanced trees": BIGMIN.)
    static func nextInside(after number: UInt64, minimum: UInt64, maximum: UInt64) -> UInt64 {
        var low = minimum, high = maximum, best: UInt64 = 0
        // Above the highest bit where the corners differ, every number between them agrees with both.
        var bit = 63 - (minimum ^ maximum).leadingZeroBitCount
        while bit >= 0 {
            let mask: UInt64 = 1 << UInt64(bit)
            // The lower bits of the same axis as `bit`.
            let axis: UInt64 = (bit & 1 == 0 ? 0x5555_5555_5555_5555 : 0xAAAA_AAAA_AAAA_AAAA) & (mask - 1)
            switch (number & mask != 0, low & mask != 0, high & mask != 0) {
            case (false, false, true):
                best = (low & ~axis) | mask          // low with this bit set, the axis's lower bits cleared
                high = (high & ~mask) | axis         // high with this bit cleared, the axis's lower bits set
            case (false, true, true):
                return low
            case (true, false, false):
                return best
            case (true, false, true):
                low = (low & ~axis) | mask
            default:
                break  // (0,0,0) and (1,1,1) go on; (0,1,0) and (1,1,0) cannot happen with low ≤ high per axis
            }
            bit -= 1
        }
        return best
    }

    /// Calls `body(number, lower, upper)` for each cell of the rectangle (`columns` × `rows`, in
    /// cell coordinates at `level`) holding at least one of `count` sorted codes, in Morton order,
    /// with the positions [lower, upper) of its codes. `code(i)` reads the i-th code and
    /// `firstAtLeast(code, from)` the first position at or after `from` whose code is ≥ `code`.
    @inline(__always)
    static func walk(
        level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>, count: Int,
        code: (Int) -> UInt64, firstAtLeast: (UInt64, Int) -> Int, _ body: (UInt64, Int, Int) -> Void
    ) {
        guard count > 0 else { return }
        let shift = UInt64(2 * level)
        let minimum = number(column: columns.lowerBound, row: rows.lowerBound)
        let maximum = number(column: columns.upperBound, row: rows.upperBound)
        var i = firstAtLeast(minimum << shift, 0)
        while i < count {
            let cell = code(i) >> shift
            if cell > maximum { return }
            if columns.contains(column(of: cell)) && rows.contains(row(of: cell)) {
                // The cell's end: the first code of a later cell (a level-28 cell is the whole world).
                let end = shift >= 56 ? count : firstAtLeast((cell + 1) << shift, i + 1)
                body(cell, i, end)
                i = end
            } else {
                i = firstAtLeast(nextInside(after: cell, minimum: minimum, maximum: maximum) << shift, i + 1)
            }
        }
    }
}
