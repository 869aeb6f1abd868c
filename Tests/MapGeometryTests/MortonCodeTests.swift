import MapGeometry
import Testing

@Suite struct MortonCodeTests {
    /// Bit-by-bit interleaving, written the slow obvious way.
    func naive(_ x: UInt32, _ y: UInt32) -> UInt64 {
        var code: UInt64 = 0
        for bit in 0..<28 {
            code |= UInt64((x >> UInt32(bit)) & 1) << UInt64(2 * bit)
            code |= UInt64((y >> UInt32(bit)) & 1) << UInt64(2 * bit + 1)
        }
        return code
    }

    @Test func interleavesLikeTheDefinitionAndRoundTrips() {
        var random = SystemRandomNumberGenerator()
        let corners: [(UInt32, UInt32)] = [(0, 0), (1, 0), (0, 1), (1 << 28 - 1, 1 << 28 - 1), (1 << 27, 3)]
        let samples = corners + (0..<5_000).map { _ in (UInt32.random(in: 0..<1 << 28, using: &random), UInt32.random(in: 0..<1 << 28, using: &random)) }
        for (x, y) in samples {
            let code = MortonCode(x: x, y: y)
            #expect(code.rawValue == naive(x, y))
            #expect(code.x == x && code.y == y)
        }
    }

    @Test func anAlignedCellIsOneRangeOfCodes() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let level = Int.random(in: 0...28, using: &random)
            let side = UInt32(1) << UInt32(level)
            let anchor = MortonCode(x: UInt32.random(in: 0..<1 << 28, using: &random), y: UInt32.random(in: 0..<1 << 28, using: &random))
            let range = anchor.cellRange(level: level)
            let (cellX, cellY) = (anchor.x / side * side, anchor.y / side * side)
            let inside = MortonCode(x: cellX + UInt32.random(in: 0..<side, using: &random), y: cellY + UInt32.random(in: 0..<side, using: &random))
            #expect(range.contains(inside.rawValue))
            if cellX + side < 1 << 28 { #expect(!range.contains(MortonCode(x: cellX + side, y: cellY).rawValue)) }
            if cellY > 0 { #expect(!range.contains(MortonCode(x: cellX, y: cellY - 1).rawValue)) }
        }
        #expect(MortonCode(x: 5, y: 9).cellRange(level: 28) == 0...(1 << 56 - 1))
    }

    @Test func mapPointsWrapInXAndClampInY() {
        #expect(MortonCode(MapPoint(x: -1, y: -5)) == MortonCode(x: 1 << 28 - 1, y: 0))
        #expect(MortonCode(MapPoint(x: 268_435_456.5, y: 3e9)) == MortonCode(x: 0, y: 1 << 28 - 1))
        #expect(MortonCode(Mercator.mapPoint(for: Coordinate(latitude: 0, longitude: 0))) == MortonCode(x: 1 << 27, y: 1 << 27))
    }
}
