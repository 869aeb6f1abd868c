@testable import AnnotationIndex
import TestSupport
import Testing

/// A column's aggregates over every range of a partition's main run (ranges inside one block,
/// touching either end of it or neither, across blocks and the last, partial one), with members
/// removed and not merged yet, against a pass over the range's members.
@Suite struct BlockEdgesTests {
    @Test func everyRangeOfAPartitionMatchesAPassOverItsMembers() {
        var random = SeededGenerator(seed: 7)
        let n = 300  // four whole blocks of 64 and a partial one of 44
        let partition = ThinningPartition(sorted: (0..<n).map { k in
            Member(code: UInt64(k) * 3, ordinal: UInt32(k), x: Double(k), y: 0, rank: Rank.make(priority: 500, ordinal: UInt32(k)))
        })
        let column = PropertyColumn(name: "v", slots: n)
        for k in 0..<n {
            column.byOrdinal[k] = switch Int.random(in: 0..<5, using: &random) {
            case 0: .nan  // no value
            case 1: -Double(Int.random(in: 1...3, using: &random))
            case 2: Double(Int.random(in: 0...3, using: &random))  // ties for min and max
            default: Double.random(in: -1e6...1e6, using: &random)
            }
        }
        partition.addColumn(column)
        var places = ColumnPlaces()
        places.append(0)
        var removed = Set<Int>()

        func check(_ when: String) {
            var failures = 0
            for i in 0...n {
                for j in i...n where failures < 5 {
                    var stats = ValueStats()
                    withUnsafeMutablePointer(to: &stats) { partition.addStats(places, in: 0...UInt64.max, main: i..<j, rankLimit: nil, to: $0) }
                    let values = (i..<j).filter { !removed.contains($0) }.map { column.byOrdinal[$0] }.filter { !$0.isNaN }
                    let sum = values.reduce(0, +)
                    let same = stats.count == values.count && abs(stats.sum - sum) <= 1e-9 * max(1, values.map(abs).reduce(0, +))
                        && (values.isEmpty || (stats.min == values.min() && stats.max == values.max()))
                    if !same {
                        failures += 1
                        Issue.record("\(when): [\(i), \(j)) gives \(stats), a pass gives count \(values.count), sum \(sum), min \(values.min() ?? .nan), max \(values.max() ?? .nan)")
                    }
                }
            }
        }
        check("as built")
        // Fewer than a merge takes (256): marked removed in the main run, their blocks' edges redone at the batch's end.
        for _ in 0..<40 {
            let k = Int.random(in: 0..<n, using: &random)
            guard removed.insert(k).inserted else { continue }
            partition.remove(code: UInt64(k) * 3, ordinal: UInt32(k))
        }
        partition.syncColumns()
        check("with \(removed.count) removed")
    }
}

@Suite struct ColumnPlacesTests {
    /// Up to 8 places below 256 packed in a word; a ninth, or a place beyond (the index over 16
    /// columns while answers hold them all), moves every place to an array, none lost.
    @Test func placesBeyondTheWordSpillIntoAnArray() {
        for extra in [[Int](), [3], [300], [9, 300, 4]] {
            let all = [0, 15, 16, 255, 7, 1, 2, 200].prefix(extra.isEmpty ? 8 : 5) + extra
            var places = ColumnPlaces()
            for place in all { places.append(place) }
            #expect(places.count == all.count && (0..<places.count).map { places[$0] } == Array(all))
        }
    }
}
