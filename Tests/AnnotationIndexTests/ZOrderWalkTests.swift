@testable import AnnotationIndex
import Testing
import TestSupport

/// The walk over occupied cells against visiting every cell of the rectangle.
@Suite struct ZOrderWalkTests {
    @Test func numbersRoundTripThroughColumnAndRow() {
        for (column, row) in [(0, 0), (1, 0), (0, 1), (5, 9), (1 << 27, 3), ((1 << 28) - 1, (1 << 28) - 1)] {
            let number = ZOrder.number(column: column, row: row)
            #expect(ZOrder.column(of: number) == column && ZOrder.row(of: number) == row)
        }
    }

    /// BIGMIN: the next number inside the rectangle, against scanning every number after it.
    @Test func theNextNumberInsideIsTheFirstOneAScanFinds() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let c0 = Int.random(in: 0..<60, using: &random), r0 = Int.random(in: 0..<60, using: &random)
            let columns = c0...(c0 + Int.random(in: 0..<8, using: &random)), rows = r0...(r0 + Int.random(in: 0..<8, using: &random))
            let minimum = ZOrder.number(column: columns.lowerBound, row: rows.lowerBound)
            let maximum = ZOrder.number(column: columns.upperBound, row: rows.upperBound)
            guard maximum > minimum + 1 else { continue }
            let outside = (minimum...maximum).filter { !columns.contains(ZOrder.column(of: $0)) || !rows.contains(ZOrder.row(of: $0)) }
            for number in outside.shuffled(using: &random).prefix(5) {
                let scanned = ((number + 1)...maximum).first { columns.contains(ZOrder.column(of: $0)) && rows.contains(ZOrder.row(of: $0)) }
                #expect(ZOrder.nextInside(after: number, minimum: minimum, maximum: maximum) == scanned)
            }
        }
    }

    /// Near the top of the 28-bit axes, and at the coarsest levels: one cell (level 28) and four (27).
    @Test func theWalkHoldsAtTheWorldsEdgesAndCoarsestLevels() {
        let top = (1 << 28) - 1
        let codes = [(0, 0), (top, 0), (0, top), (top, top), (1 << 27, 1 << 27)].map { ZOrder.number(column: $0.0, row: $0.1) }.sorted()
        func cells(_ level: Int, _ columns: ClosedRange<Int>, _ rows: ClosedRange<Int>) -> [(UInt64, Range<Int>)] {
            var found: [(UInt64, Range<Int>)] = []
            ZOrder.walk(level: level, columns: columns, rows: rows, count: codes.count, code: { codes[$0] },
                        firstAtLeast: { code, from in codes[from...].firstIndex { $0 >= code } ?? codes.count }) { found.append(($0, $1..<$2)) }
            return found
        }
        #expect(cells(28, 0...0, 0...0).map(\.1) == [0..<5])
        #expect(cells(27, 0...1, 0...1).map(\.0) == [0, 1, 2, 3] && cells(27, 0...1, 0...1).map(\.1.count) == [1, 1, 1, 2])
        #expect(cells(27, 1...1, 0...1).map(\.0) == [1, 3])
        #expect(cells(0, top...top, top...top).map(\.1.count) == [1])
        // BIGMIN on numbers with every high bit set: each number between the corners outside the view.
        let (columns, rows) = ((top - 6)...(top - 1), (top - 5)...(top - 2))
        let minimum = ZOrder.number(column: columns.lowerBound, row: rows.lowerBound), maximum = ZOrder.number(column: columns.upperBound, row: rows.upperBound)
        func inside(_ number: UInt64) -> Bool { columns.contains(ZOrder.column(of: number)) && rows.contains(ZOrder.row(of: number)) }
        let outside = (minimum...maximum).filter { !inside($0) }
        #expect(!outside.isEmpty)
        for number in outside {
            #expect(ZOrder.nextInside(after: number, minimum: minimum, maximum: maximum) == ((number + 1)...maximum).first(where: inside))
        }
    }

    /// Random codes at a fine level, random rectangles at a coarser one: the walk reports exactly
    /// the occupied cells inside, in Morton order, each with the positions of its codes.
    @Test(arguments: [0, 1, 3, 6]) func theWalkFindsEveryOccupiedCellAndOnlyThose(level: Int) {
        var random = SeededGenerator(seed: UInt64(level) + 11)
        let side = 1 << 8  // fine coordinates 0..<256
        let codes = (0..<400).map { _ in ZOrder.number(column: Int.random(in: 0..<side, using: &random), row: Int.random(in: 0..<side, using: &random)) }.sorted()
        let cells = side >> level
        for _ in 0..<100 {
            let c0 = Int.random(in: 0..<cells, using: &random), r0 = Int.random(in: 0..<cells, using: &random)
            let columns = c0...min(cells - 1, c0 + Int.random(in: 0..<max(1, cells / 3), using: &random))
            let rows = r0...min(cells - 1, r0 + Int.random(in: 0..<max(1, cells / 3), using: &random))
            var found: [(UInt64, Range<Int>)] = []
            ZOrder.walk(level: level, columns: columns, rows: rows, count: codes.count, code: { codes[$0] },
                        firstAtLeast: { code, from in codes[from...].firstIndex { $0 >= code } ?? codes.count }) { cell, i, j in
                found.append((cell, i..<j))
            }
            var expected: [(UInt64, Range<Int>)] = []
            for (i, code) in codes.enumerated() {
                let cell = code >> UInt64(2 * level)
                guard columns.contains(ZOrder.column(of: cell)), rows.contains(ZOrder.row(of: cell)) else { continue }
                if let last = expected.last, last.0 == cell { expected[expected.count - 1].1 = last.1.lowerBound..<(i + 1) } else { expected.append((cell, i..<(i + 1))) }
            }
            #expect(found.map(\.0) == expected.map(\.0))
            #expect(found.map(\.1) == expected.map(\.1))
        }
    }
}
