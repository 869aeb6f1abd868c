/// Z-order (Morton) codes of the Mercator world: the bits of a map point's integer x and y
/// interleaved, x in the even bits. Points sorted by code are sorted cell by cell at every
/// power-of-two grid, so one aligned square cell is one contiguous range of codes — the
/// building block of the world-anchored thinning grid (DESIGN.md, "Thinning").
public struct MortonCode: Hashable, Comparable, Sendable {
    /// Bits per axis: the world is 2^28 map points wide.
    public static let bitsPerAxis = 28

    /// The interleaved bits (56 used).
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The code of the map point's cell of one map point (x wrapped into the world, y clamped).
    public init(_ point: MapPoint) {
        let limit = Mercator.worldSize - 1
        let x = UInt32(min(max(Mercator.wrapX(point.x).rounded(.down), 0), limit))
        let y = UInt32(min(max(point.y.rounded(.down), 0), limit))
        self.init(x: x, y: y)
    }

    /// The code of integer map coordinates (each below 2^28).
    public init(x: UInt32, y: UInt32) {
        rawValue = Self.spread(x) | Self.spread(y) << 1
    }

    /// The integer map coordinates back.
    public var x: UInt32 { Self.compact(rawValue) }
    public var y: UInt32 { Self.compact(rawValue >> 1) }

    /// The codes of the aligned square cell of side 2^`level` map points that holds this code:
    /// every point inside has a code in the range, every point outside does not.
    public func cellRange(level: Int) -> ClosedRange<UInt64> {
        precondition((0...Self.bitsPerAxis).contains(level), "a cell is 2^0 … 2^28 map points wide")
        let shift = UInt64(2 * level)
        let low = (rawValue >> shift) << shift
        return low...(low | ((1 << shift) - 1))
    }

    public static func < (a: MortonCode, b: MortonCode) -> Bool { a.rawValue < b.rawValue }

    /// Moves the bits of `value` to the even bit positions.
    @inlinable public static func spread(_ value: UInt32) -> UInt64 {
        var bits = UInt64(value)
        bits = (bits | bits << 16) & 0x0000_FFFF_0000_FFFF
        bits = (bits | bits << 8) & 0x00FF_00FF_00FF_00FF
        bits = (bits | bits << 4) & 0x0F0F_0F0F_0F0F_0F0F
        bits = (bits | bits << 2) & 0x3333_3333_3333_3333
        bits = (bits | bits << 1) & 0x5555_5555_5555_5555
        return bits
    }

    /// The inverse of ``spread(_:)``: the even bits gathered into the low 32.
    @inlinable public static func compact(_ value: UInt64) -> UInt32 {
        var bits = value & 0x5555_5555_5555_5555
        bits = (bits | bits >> 1) & 0x3333_3333_3333_3333
        bits = (bits | bits >> 2) & 0x0F0F_0F0F_0F0F_0F0F
        bits = (bits | bits >> 4) & 0x00FF_00FF_00FF_00FF
        bits = (bits | bits >> 8) & 0x0000_FFFF_0000_FFFF
        bits = (bits | bits >> 16) & 0x0000_0000_FFFF_FFFF
        return UInt32(bits)
    }
}
